"""``muggins-serve``: the browser face of ``GameSession`` (needs the ``[web]`` extra).

A table is one ``GameSession`` kept in the server's memory; each human seat reaches it through
its own link carrying an unguessable token, agents play their seats on the server, and every
seat only ever receives the payload built from its own ``session.view(seat)`` and the move log
as that seat saw it (``tables.py``). ``app.py`` is the Starlette app (HTTP API, WebSocket
pushes, static pages), ``cli.py`` the command.
"""
