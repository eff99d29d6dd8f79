"""inspect_ai's side of `sr bench serve`: a fresh process that sends ``--requests`` chat completions to
the loopback server through inspect_ai's own async model client, ``max_connections`` at a time.

``get_model("openai/scripted", base_url=..., api_key=..., config=GenerateConfig(max_connections=N))``,
then every ``generate`` at once under asyncio (inspect_ai's own concurrency limit holds them to N), as
inspect_ai's samples run. Chat completions, not the Responses API (``responses_api=False``), so both
sides speak the same protocol to the same server. Prints the loop's wall seconds as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time


async def _drive(base_url: str, requests: int, connections: int) -> float:
    from inspect_ai.model import GenerateConfig, get_model

    model = get_model(
        "openai/scripted",
        base_url=base_url,
        api_key="loopback",
        config=GenerateConfig(max_connections=connections, max_retries=3, cache=False),
        memoize=False,
        responses_api=False,
    )
    started = time.perf_counter()
    await asyncio.gather(*(model.generate(f"request {i}") for i in range(requests)))
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--connections", type=int, required=True)
    args = parser.parse_args(argv)
    loop_s = asyncio.run(_drive(args.base_url, args.requests, args.connections))
    print(json.dumps({"loop_s": loop_s, "requests": args.requests}))


if __name__ == "__main__":
    main(sys.argv[1:])
