#!/usr/bin/python3
"""AISBench's own client against a live server: its VLLMCustomAPIChat (generate ->
stream_infer -> iter_lines, parse_stream_response, with time.perf_counter time points),
on a real aiohttp session, C requests at a time; the run's records written into a
work_dir by AISBench's own output handler (oracle.write_workdir: BaseInferencerOutputHandler,
db_utils' numpy store), as its inferencer would. AISBench's source is loaded at run time
(../shared/oracle/aisb_env.py, AISB_SRC), never copied here.

usage: AISB_SRC=DIR /usr/bin/python3 run_client.py --port P --requests N --concurrency C
           [--api-key KEY] [--busy-ms MS] --out WORK_DIR
--busy-ms makes the client slow on purpose: a task that holds the event loop MS ms out of
every 2*MS (a busy loop, as a tokenizer or a JSON parse at high concurrency does).
"""
import argparse, asyncio, os, sys, time

ORACLE = os.environ.get("AISB_ORACLE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared", "oracle"))
sys.path.insert(0, ORACLE)
import aisb_env  # noqa: E402
import oracle  # noqa: E402
import aiohttp  # noqa: E402


async def busy(ms, stop):
    while not stop.is_set():
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            pass
        await asyncio.sleep(ms / 1000)


async def run(a, L):
    m = L["vllm_chat"].VLLMCustomAPIChat(model="m", host_ip="127.0.0.1", host_port=a.port, stream=True, retry=1,
                                         api_key=a.api_key, generation_kwargs={"max_tokens": a.max_tokens})
    outs = [None] * a.requests
    sem = asyncio.Semaphore(a.concurrency)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
        async def one(i):
            async with sem:
                out = L["output"].RequestOutput(perf_mode=True)
                prompt = f"request {i}: tell me about streaming"
                await m.generate(prompt, a.max_tokens, out, session=session)
                outs[i] = (prompt, out)
        stop = asyncio.Event()
        hog = asyncio.create_task(busy(a.busy_ms, stop)) if a.busy_ms > 0 else None
        await asyncio.gather(*(one(i) for i in range(a.requests)))
        stop.set()
        if hog:
            await hog
    return outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--api-key", default="")
    ap.add_argument("--busy-ms", type=float, default=0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    L = aisb_env.load()
    outs = asyncio.run(run(a, L))
    reqs = [{"time_points": list(o.time_points), "success": bool(o.success), "error_info": o.error_info or "",
             "input_tokens": o.input_tokens, "output_tokens": o.output_tokens, "input": p, "prediction": o.content}
            for p, o in outs]
    oracle.write_workdir(L, a.out, "model", "ds", reqs)
    ok = sum(r["success"] for r in reqs)
    print(f"{ok} of {len(reqs)} requests succeeded; work_dir {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
