"""A language model at the table: the ``llm:`` agent spec, over any OpenAI-compatible endpoint.

``llm:model=NAME,base_url=URL[,key_env=VAR][,list_moves=true|false][,schema=false|true|json_schema|json_object]
[,retries=K][,fallback=SPEC][,timeout=S][,max_tokens=N][,temperature=T][,http_retries=N][,history=N]``

At each decision the harness gives the agent ``info["text"]`` (``needs_text``): the decision in
words from its seat's view only (``muggins_env.text_view``: the rules, the table as the seat
sees it, the moves so far as it saw them, the legal moves). The agent sends it to
``<base_url>/chat/completions`` (``base_url`` as OpenAI clients take it, e.g.
``http://127.0.0.1:8080/v1``) with the standard library only: the key (``Authorization: Bearer``)
from the environment variable ``key_env`` (default ``OPENAI_API_KEY``; none is needed by a local
server), ``timeout`` seconds a request, ``http_retries`` more tries with back-off on transport
errors (no connection, a timeout, HTTP 429 or 5xx).

The answer must end with ``Final Answer: <move>`` or hold a ```json {"move": ...}``` block. It
is matched softly to the legal moves (``match_answer``): the name in any case and spacing, ``5h``
for ``5♥``, the number of a listed move (``list_moves=true``, the default), or a prefix that fits
one move. An answer that names no legal move is sent back with "That move is not legal because
..." up to ``retries`` times (default 2); then the ``fallback`` agent (default ``heuristic``)
plays the move, and it is counted. ``schema=true`` asks for structured output: a JSON schema
whose ``move`` is an enum of the legal moves, sent as OpenAI's ``{"type": "json_schema", ...}``
and, when the server refuses that (HTTP 400/422, or 500 naming ``response_format``), as ``{"type": "json_object", "schema": ...}``
(llama-cpp-python's form); ``schema=json_schema`` or ``schema=json_object`` sends one form only.

Every exchange (the messages sent, the answer, what was parsed, why it was refused, tokens,
seconds) and every fallback is in ``last_log`` after ``act`` (``GameSession`` writes it into the
game record's move, ``MoveRecord.llm``), and ``stats()`` counts decisions, answers, illegal
answers, retries, fallbacks, transport errors, tokens and seconds (``muggins-eval`` reports them).
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

import numpy as np

from muggins_env.text_view import format_prompt

#: setting -> (default, what it takes); model and base_url have no default
LLM_SETTINGS: dict[str, tuple[Any, str]] = {
    "model": (None, "the model name the server knows"),
    "base_url": (None, "the endpoint's base URL, http(s)://host[:port]/v1"),
    "key_env": ("OPENAI_API_KEY", "the environment variable holding the API key"),
    "list_moves": (True, "true or false"),
    "schema": ("false", "false, true, json_schema or json_object"),
    "retries": (2, "an int >= 0"),
    "fallback": ("heuristic", "an agent spec without ',' (not llm)"),
    "timeout": (60.0, "seconds > 0"),
    "max_tokens": (256, "an int >= 1"),
    "temperature": (0.0, "a number >= 0"),
    "http_retries": (2, "an int >= 0"),
    "history": (60, "an int >= 0: the last moves shown"),
}
SCHEMA_MODES = ("false", "true", "json_schema", "json_object")
LLM_SPEC_HELP = ("llm:model=NAME,base_url=URL[,key_env=OPENAI_API_KEY][,list_moves=true|false]"
                 "[,schema=false|true|json_schema|json_object][,retries=2][,fallback=heuristic][,timeout=60]"
                 "[,max_tokens=256][,temperature=0][,http_retries=2][,history=60]   a language model over an "
                 "OpenAI-compatible /v1/chat/completions endpoint")
#: seconds before the first transport retry (doubled each time)
BACKOFF = 0.5


class TransportError(RuntimeError):
    """The endpoint could not be reached or answered with an error."""


def _bool(spec: str, key: str, text: str) -> bool:
    low = text.strip().lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise ValueError(f"agent spec {spec!r}: {key}={text!r} is not allowed; allowed: true, false")


def _number(spec: str, key: str, text: str, conv: type, low: float, strict: bool = False) -> Any:
    try:
        value = conv(text)
    except ValueError:
        value = None
    if value is None or (value <= low if strict else value < low) or (conv is float and not np.isfinite(value)):
        raise ValueError(f"agent spec {spec!r}: {key}={text!r} is not allowed; allowed: "
                         f"{LLM_SETTINGS[key][1]}")
    return value


def parse_llm_spec(spec: str, arg: str) -> dict[str, Any]:
    """The settings of ``llm:key=value,...`` (every key named, typed and checked; clear errors
    naming a bad key or value and what is allowed)."""
    out: dict[str, Any] = {}
    for part in [p for p in arg.split(",") if p.strip()]:
        if "=" not in part:
            raise ValueError(f"agent spec {spec!r}: cannot read {part!r}; give key=value settings: "
                             f"{', '.join(LLM_SETTINGS)} (e.g. llm:model=smollm2,base_url=http://127.0.0.1:8080/v1)")
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key not in LLM_SETTINGS:
            raise ValueError(f"agent spec {spec!r}: unknown llm setting {key!r}; allowed: {', '.join(LLM_SETTINGS)}")
        if key in out:
            raise ValueError(f"agent spec {spec!r}: llm setting {key!r} is given twice")
        if key in ("model", "key_env", "fallback") and not value:
            raise ValueError(f"agent spec {spec!r}: {key}= is empty; give {LLM_SETTINGS[key][1]}")
        if key == "base_url":
            if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
                raise ValueError(f"agent spec {spec!r}: base_url={value!r} is not allowed; allowed: "
                                 "an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1")
            out[key] = value.rstrip("/")
        elif key == "key_env":
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
                raise ValueError(f"agent spec {spec!r}: key_env={value!r} is not an environment variable name")
            out[key] = value
        elif key == "list_moves":
            out[key] = _bool(spec, key, value)
        elif key == "schema":
            low = value.lower()
            if low in ("1", "yes"):
                low = "true"
            elif low in ("0", "no"):
                low = "false"
            if low not in SCHEMA_MODES:
                raise ValueError(f"agent spec {spec!r}: schema={value!r} is not allowed; allowed: "
                                 f"{', '.join(SCHEMA_MODES)}")
            out[key] = low
        elif key in ("retries", "http_retries", "history"):
            out[key] = _number(spec, key, value, int, 0)
        elif key == "max_tokens":
            out[key] = _number(spec, key, value, int, 1)
        elif key == "timeout":
            out[key] = _number(spec, key, value, float, 0, strict=True)
        elif key == "temperature":
            out[key] = _number(spec, key, value, float, 0)
        elif key == "fallback":
            from muggins_env.agents import parse_spec

            if value.split(":", 1)[0].strip() == "llm":
                raise ValueError(f"agent spec {spec!r}: fallback={value!r}: the fallback may not be an llm agent "
                                 "(give e.g. fallback=heuristic or fallback=random)")
            try:
                kind = parse_spec(value)[0]
            except ValueError as e:
                raise ValueError(f"agent spec {spec!r}: fallback={value!r} is not a valid agent spec ({e})") from None
            if kind == "llm":
                raise ValueError(f"agent spec {spec!r}: fallback={value!r}: the fallback may not be an llm agent "
                                 "(give e.g. fallback=heuristic or fallback=random)")
            out[key] = value
        else:  # model
            out[key] = value
    missing = [k for k in ("model", "base_url") if k not in out]
    if missing:
        raise ValueError(f"agent spec {spec!r}: give {' and '.join(f'{k}=' for k in missing)} "
                         "(e.g. llm:model=smollm2,base_url=http://127.0.0.1:8080/v1); " + LLM_SPEC_HELP)
    return out


# -- the answer ------------------------------------------------------------------------------------
_SUITS = str.maketrans({"♥": "h", "♦": "d", "♣": "c", "♠": "s", "→": "->", "–": "-", "—": "-"})
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL | re.IGNORECASE)
_OBJECT = re.compile(r"\{[^{}]*\"move\"[^{}]*\}", re.DOTALL)
_FINAL = re.compile(r"final\s*answer\s*[:：]\s*(.+)", re.IGNORECASE)


def _norm(text: str) -> str:
    text = text.translate(_SUITS).lower()
    return " ".join(text.replace("*", " ").replace("`", " ").split()).strip(" .'\"")


def extract_answer(answer: str) -> str | int | None:
    """The move an answer gives: the last ```json {"move": ...}``` block (or bare JSON object
    with ``move``), else the last ``Final Answer: X`` line, else None."""
    text = answer or ""
    for pattern in (_FENCE, _OBJECT):
        found = pattern.findall(text)
        for block in reversed(found):
            try:
                data = json.loads(block)
            except json.JSONDecodeError:
                continue
            if isinstance(data, Mapping) and "move" in data and isinstance(data["move"], (str, int)) \
                    and not isinstance(data["move"], bool):
                return data["move"]
    try:
        data = json.loads(text.strip())
        if isinstance(data, Mapping) and isinstance(data.get("move"), (str, int)) and not isinstance(data["move"], bool):
            return data["move"]
    except json.JSONDecodeError:
        pass
    finals = _FINAL.findall(text)
    if finals:
        return finals[-1].strip().splitlines()[0].strip()
    return None


def match_answer(candidate: str | int, legal: Mapping[int, str], numbered: bool = True) -> tuple[int | None, str]:
    """``(action, "")`` for the legal move ``candidate`` names, else ``(None, why not)``: the name
    in any case and spacing (``5h`` for ``5♥``), the number of a listed move (``numbered``), or a
    prefix that fits one move."""
    actions = list(legal)
    if isinstance(candidate, int):
        text = str(candidate)
    else:
        text = str(candidate)
    norm = _norm(text)
    if not norm:
        return None, "the answer names no move"
    names = {a: _norm(n) for a, n in legal.items()}
    exact = [a for a in actions if names[a] == norm or names[a].replace(" ", "") == norm.replace(" ", "")]
    if len(exact) == 1:
        return exact[0], ""
    m = re.fullmatch(r"(?:move\s*)?#?(\d+)(?:[.):]\s*(.*))?", norm)
    if m and numbered:
        rest = m.group(2)
        if rest:
            by_name = [a for a in actions if names[a] == rest]
            if len(by_name) == 1:
                return by_name[0], ""
        k = int(m.group(1))
        if 1 <= k <= len(actions):
            return actions[k - 1], ""
        return None, f"there is no move number {k} (the moves are numbered 1 to {len(actions)})"
    prefix = [a for a in actions if names[a].startswith(norm)]
    if len(prefix) == 1:
        return prefix[0], ""
    if len(prefix) > 1:
        return None, f"{text!r} fits several moves ({', '.join(legal[a] for a in prefix[:8])}): name one"
    return None, f"{text!r} is not one of the legal moves"


# -- the agent ---------------------------------------------------------------------------------------
class LLMAgent:
    """A language-model player (see the module docstring); ``fallback``: an agent object."""

    needs_text = True
    needs_info = True

    def __init__(self, model: str, base_url: str, fallback: Any, fallback_spec: str = "heuristic",
                 key_env: str = "OPENAI_API_KEY", list_moves: bool = True, schema: str = "false",
                 retries: int = 2, timeout: float = 60.0, max_tokens: int = 256, temperature: float = 0.0,
                 http_retries: int = 2, history: int = 60, spec: str | None = None) -> None:
        self.model, self.base_url = model, base_url.rstrip("/")
        self.url = self.base_url if self.base_url.endswith("/chat/completions") else self.base_url + "/chat/completions"
        self.fallback, self.fallback_spec = fallback, fallback_spec
        self.key_env, self.list_moves, self.schema = key_env, bool(list_moves), schema
        self.retries, self.timeout, self.max_tokens = int(retries), float(timeout), int(max_tokens)
        self.temperature, self.http_retries, self.history = float(temperature), int(http_retries), int(history)
        self.name = spec or f"llm:model={model},base_url={base_url}"
        self.needs_sampler = bool(getattr(fallback, "needs_sampler", False))
        self.needs_observation = bool(getattr(fallback, "needs_observation", True))
        self._schema_form = "json_object" if schema == "json_object" else "json_schema"
        self.last_log: list[dict] | None = None
        self._stats = dict.fromkeys(("decisions", "answers", "illegal_answers", "retries", "fallbacks",
                                     "transport_errors", "prompt_tokens", "completion_tokens"), 0)
        self._stats["seconds"] = 0.0

    def __repr__(self) -> str:
        return f"LLMAgent(model={self.model!r}, base_url={self.base_url!r})"

    def stats(self) -> dict:
        """Counts since the agent was made (``muggins-eval`` takes the difference over each game)."""
        return dict(self._stats)

    def reset(self) -> None:
        self.last_log = None
        reset = getattr(self.fallback, "reset", None)
        if callable(reset):
            reset()

    # -- the prompt ----------------------------------------------------------------------------
    def messages(self, text: dict) -> list[dict]:
        if self.history and len(text["history"]) > self.history:
            text = dict(text, history=[f"({len(text['history']) - self.history} earlier moves not shown)",
                                       *text["history"][-self.history:]])
        elif not self.history:
            text = dict(text, history=[])
        how = ("End your answer with one line 'Final Answer: <move>', the move written exactly as in the list "
               "of legal moves (or its number), or give a ```json {\"move\": \"<move>\"}``` block."
               if self.list_moves else
               "The legal moves are not listed: name one in the table's notation (as the moves so far are "
               "written). End your answer with one line 'Final Answer: <move>', or give a ```json "
               "{\"move\": \"<move>\"}``` block.")
        if self.schema != "false":
            how = "Answer with a JSON object {\"move\": \"<move>\"}, the move one of the legal moves."
        system = (f"You are a player in a card or domino game.\nRules: {text['system']}\n"
                  f"You are player {text['you']}. {how} Play only legal moves; be brief.")
        return [{"role": "system", "content": system},
                {"role": "user", "content": format_prompt(text, self.list_moves)}]

    def _response_format(self, legal: Mapping[int, str]) -> dict | None:
        if self.schema == "false":
            return None
        schema = {"type": "object", "properties": {"move": {"type": "string", "enum": list(legal.values())}},
                  "required": ["move"], "additionalProperties": False}
        if self._schema_form == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "move", "strict": True, "schema": schema}}

    # -- the endpoint --------------------------------------------------------------------------
    def _post(self, body: dict) -> dict:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(body).encode("utf-8")
        last = ""
        attempt, switched = 0, False
        while attempt <= self.http_retries:
            if attempt and not switched:
                time.sleep(BACKOFF * 2 ** (attempt - 1))
            switched = False
            attempt += 1
            req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                detail = e.read().decode("utf-8", "replace")[:300]
                refused = e.code in (400, 422) or (e.code == 500 and "response_format" in detail)
                if refused and self.schema == "true" and self._schema_form == "json_schema" \
                        and "response_format" in body:  # llama-cpp-python answers 500 naming the field
                    self._schema_form = "json_object"  # llama-cpp-python's form of a schema
                    body = dict(body, response_format={"type": "json_object",
                                                       "schema": body["response_format"]["json_schema"]["schema"]})
                    data = json.dumps(body).encode("utf-8")
                    last = f"HTTP {e.code}: {detail}"
                    attempt -= 1  # the other form at once: no try lost
                    switched = True
                    continue
                last = f"HTTP {e.code}: {detail}"
                if e.code != 429 and e.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
                last = f"{type(e).__name__}: {getattr(e, 'reason', e)}"
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                last = f"the endpoint's answer is not JSON ({e})"
        raise TransportError(f"{self.url}: {last}")

    def chat(self, messages: list[dict], legal: Mapping[int, str]) -> tuple[str, dict]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": self.max_tokens,
                                "temperature": self.temperature}
        fmt = self._response_format(legal)
        if fmt is not None:
            body["response_format"] = fmt
        reply = self._post(body)
        try:
            content = reply["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise TransportError(f"{self.url}: the answer has no choices[0].message ({str(reply)[:200]})") from None
        usage = reply.get("usage") or {}
        return str(content), {"prompt_tokens": int(usage.get("prompt_tokens") or 0),
                              "completion_tokens": int(usage.get("completion_tokens") or 0)}

    # -- a decision ----------------------------------------------------------------------------
    def act(self, observation, action_mask, rng, info=None) -> int:
        text = info.get("text") if isinstance(info, Mapping) else None
        if not isinstance(text, Mapping):
            raise ValueError("the llm agent needs info['text'] (muggins_env.text_view): the harness must give it "
                             "to agents with needs_text (agent_action, play_game and GameSession do)")
        legal = {int(a): name for a, name in text["legal_moves"].items() if action_mask[int(a)]}
        if not legal:
            raise ValueError("the llm agent was asked to move for a seat that is not to act (no legal moves)")
        if len(legal) == 1:
            self.last_log = None
            return next(iter(legal))
        t0 = time.perf_counter()
        st = self._stats
        st["decisions"] += 1
        log: list[dict] = []
        messages = self.messages(text)
        sent = 0
        action = None
        for attempt in range(self.retries + 1):
            t1 = time.perf_counter()
            try:
                answer, usage = self.chat(messages, legal)
            except TransportError as e:
                st["transport_errors"] += 1
                log.append({"prompt": messages[sent:], "error": str(e), "seconds": round(time.perf_counter() - t1, 3)})
                break
            st["answers"] += 1
            st["prompt_tokens"] += usage["prompt_tokens"]
            st["completion_tokens"] += usage["completion_tokens"]
            candidate = extract_answer(answer)
            if candidate is None:
                a, reason = None, ("the answer has no 'Final Answer: <move>' line and no ```json {\"move\": ...}``` "
                                   "block")
            else:
                a, reason = match_answer(candidate, legal, self.list_moves)
            entry = {"prompt": messages[sent:], "answer": answer, "parsed": candidate,
                     "move": legal[a] if a is not None else None, "legal": a is not None,
                     "tokens": usage, "seconds": round(time.perf_counter() - t1, 3)}
            if a is not None:
                log.append(entry)
                action = a
                break
            st["illegal_answers"] += 1
            entry["reason"] = reason
            log.append(entry)
            if attempt < self.retries:
                st["retries"] += 1
                sent = len(messages) + 1
                moves = f" The legal moves: {', '.join(legal.values())}." if self.list_moves else ""
                messages = [*messages, {"role": "assistant", "content": answer},
                            {"role": "user", "content": f"That move is not legal because {reason}.{moves} "
                                                        "Answer again: end with 'Final Answer: <move>'."}]
        if action is None:
            st["fallbacks"] += 1
            action = int(self.fallback.act(observation, action_mask, rng, info))
            log.append({"fallback": self.fallback_spec, "move": legal.get(action, str(action))})
        st["seconds"] += time.perf_counter() - t0
        self.last_log = log
        return int(action)


def make_llm_agent(spec: str, settings: Mapping[str, Any], game_id: str, options: dict | None) -> LLMAgent:
    """The agent of a parsed ``llm:`` spec, its fallback made for the same game."""
    from muggins_env.agents import make_agent

    settings = dict(settings)
    fallback_spec = settings.pop("fallback", LLM_SETTINGS["fallback"][0])
    fallback = make_agent(fallback_spec, game_id, options)
    return LLMAgent(fallback=fallback, fallback_spec=fallback_spec, spec=spec, **settings)
