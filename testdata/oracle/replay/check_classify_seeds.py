"""Checks that the classify_test.go expectations (json accepted, parse_stream_response raises)
are what Python and AISBench's real VLLMCustomAPIChat do. Run from replay/."""
import re, json, sys, asyncio, os
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("ORACLE") or os.path.join(HERE, "..", "..", "..", "..", "shared", "oracle"))
if "AISB_SRC" not in os.environ:
    sys.exit("set AISB_SRC to the extracted AISBench source (../shared/oracle/README.md)")
import aisb_env
L = aisb_env.load()
src = open("classify_test.go").read()
m = L["vllm_chat"].VLLMCustomAPIChat(model="m", host_ip="127.0.0.1", host_port=1, stream=True, retry=2)
bad = 0
for mm in re.finditer(r'\{`([^`]*)`, (Class\w+), (true|false), (true|false)\}', src):
    p, cls, ais, js = mm.groups()
    try:
        d = json.loads(p) if p.strip() != "" else json.loads(p)
        ok_json = True
    except Exception as e:
        ok_json = False
    raises = False
    if ok_json:
        out = L["output"].RequestOutput(perf_mode=True)
        try:
            asyncio.run(m.parse_stream_response(d, out))
        except Exception as e:
            raises = True
    exp_json = js == "true"
    exp_ais = ais == "true"
    flag = "" if (ok_json == exp_json and (not ok_json or raises == exp_ais)) else "   <<<< MISMATCH"
    print(f"{p[:60]:60} json={ok_json} raises={raises}{flag}")
    bad += bool(flag)
sys.exit(1 if bad else 0)
