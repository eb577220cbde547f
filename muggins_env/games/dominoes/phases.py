"""The turn's phases and the play block's indices of Muggins dominoes: facts the rules
(``rules``) and the observation (``observation``) both read."""

PLAY = 0  # first play action: + tile * num_slots + slot
LEAD_SLOT = 0  # slot of the first tile of a hand

PLAY_PHASE, ANNOUNCE_PHASE, RESPOND_PHASE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("play", "announce", "respond", "over")
# the extra play (extra_play=True): none, earned by the play being settled, offered to the player
NO_EXTRA, EXTRA_EARNED, EXTRA_OFFERED = 0, 1, 2
EXTRA_NAMES = ("none", "earned", "offered")
