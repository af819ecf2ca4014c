#!/usr/bin/python3
"""Writes client.jsonl: bodies that exercise each rule of guidellm's streaming
client (request_handlers.py's add_streaming_line, extract_metrics,
post_validation; pydantic's validation of the counts and ids), each sent
twice: cut into reads of 7 bytes, and in one read. Run from this directory;
regen.sh goldens it (golden/guidellm-client.guidellm.json)."""
import json

BODIES = [
    'data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\ndata: [DONE]\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: null\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata:[DONE]\n\n',
    'data: {"choices":[{"delta":{"reasoning_content":"r"}}]}\n\ndata: [DONE]\n\n',
    'data: {"choices":[{"delta":{"reasoning_content":"r"}}]}\n\ndata: {"choices":[],"usage":{"completion_tokens":5}}\n\ndata: [DONE]\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"error":{"message":"x"}}\n\n',
    'data: {"choices":[{"delta":null}]}\n\n',
    'data: {"choices":[{"delta":{"content":5}}]}\n\n',
    'data: {"id":7,"choices":[{"delta":{"content":"a"}}]}\n\n',
    'data: {"id":null,"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"id":"x","choices":[{"delta":{"content":"b"}}]}\n\n',
    ': ping\nevent: x\nid: 5\ndata: {"choices":[{"delta":{"content":"a"}}]}\r\n\r\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens":"7","prompt_tokens":2.0}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens":2.5}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens":true}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":[1]}\n\n',
    'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{}"}}]}}]}\n\n',
    'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":1}]}}]}\n\n',
    'data: {"choices":[{"delta":{"tool_calls":[{"id":"x"}]}}]}\n\n',
    'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":null}]}}]}\n\n',
    'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":3}}]}}]}\n\n',
    'data: {"choices":{"0":1}}\n\n',
    'data: {"choices":"x"}\n\n',
    'data: [1]\n\n',
    'data: 5\n\n',
    'data: "s"\n\n',
    'data: {}\n\ndata: []\n\ndata: 0\n\ndata: {"choices":[{"delta":{"content":" "}}]}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens":0}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens_details":{"completion_tokens":4},"completion_tokens":9}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens_details":{"cached_tokens":"x"},"completion_tokens":9}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens_details":{"image_tokens":3},"completion_tokens":9}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens_details":[1],"completion_tokens":9}}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}]}\n\n\u4f60data: x',
    'data: {"choices":[{"delta":{"content":"a"}}]}\r',
    'data: {"choices":[{"delta":{"content":"a","reasoning":"x"}}]}\n\ndata: {"choices":[{"delta":{"reasoning":5}}]}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\n',
    'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: NaN\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\n',
]

MS = 1_000_000


def main():
    lines = [json.dumps({"run": {"schema_version": 1, "model": "m", "source": "testdata/tools/guidellm/make.py"}})]
    t0 = 1000 * MS
    for i, body in enumerate(BODIES):
        for size in (7, 1000):
            data = body.encode("utf-8")
            chunks, t = [], t0 + 50 * MS
            for k in range(0, len(data), size):
                t += 3 * MS
                piece = data[k:k + size]
                try:
                    chunks.append({"t_ns": t, "data": piece.decode("utf-8")})
                except UnicodeDecodeError:
                    import base64
                    chunks.append({"t_ns": t, "data_b64": base64.b64encode(piece).decode()})
            lines.append(json.dumps({"request_id": "r%d-%d" % (i, size), "t0_ns": t0, "end_ns": t + MS,
                                     "http_status": 200, "chunks": chunks}))
            t0 += 10 * MS
    with open("client.jsonl", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
