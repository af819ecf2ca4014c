// The OpenAI SDK for Node streaming chat completions with usage from BASE_URL,
// N requests one after the other; prints one JSON line a request: the content
// it received (delta.content joined), its chunk count, the usage, or the error
// the SDK raised. Run by tap_test.go (TestTapOpenAISDK) with
// SSEAUDIT_NODE_MODULES naming a node_modules that holds `openai`.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.SSEAUDIT_NODE_MODULES, "x.js"));
const OpenAI = require("openai").default ?? require("openai");
const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY, maxRetries: 0 });
const n = Number(process.env.N);
for (let i = 0; i < n; i++) {
  const out = { i, content: "", chunks: 0, usage: null, error: null };
  try {
    const stream = await client.chat.completions.create({
      model: "m", stream: true, stream_options: { include_usage: true },
      messages: [{ role: "user", content: `request ${i}` }],
    });
    for await (const chunk of stream) {
      out.chunks++;
      for (const c of chunk.choices ?? []) out.content += c.delta?.content ?? "";
      if (chunk.usage) out.usage = chunk.usage;
    }
  } catch (e) {
    out.error = String(e?.status ?? e?.name ?? e);
  }
  console.log(JSON.stringify(out));
}
