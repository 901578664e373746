// @ts-check
// A Node client of `relapse serve`: the official `openai` package, pointed at
// the gateway. It streams a grounded answer sentence by verified sentence,
// then prints what the gateway found (outcome, findings, citations, usage).
//
//   relapse serve --upstream http://127.0.0.1:8000/v1 --port 8080
//   npm ci && RELAPSE_GATEWAY_URL=http://127.0.0.1:8080/v1 node client.mjs
//
// Environment: RELAPSE_GATEWAY_URL (default http://127.0.0.1:8080/v1),
// RELAPSE_MODEL (default gemma-3-270m), OPENAI_API_KEY (sent to the upstream,
// or the gateway key when the gateway has keys).
import OpenAI from "openai";

const client = new OpenAI({
  baseURL: process.env.RELAPSE_GATEWAY_URL ?? "http://127.0.0.1:8080/v1",
  apiKey: process.env.OPENAI_API_KEY ?? "no-key",
  maxRetries: 0,
});

const chunks = [
  {
    id: "golden-gate",
    text: "The Golden Gate Bridge opened in 1937. It is painted international orange.",
  },
];
const context = chunks.map((chunk) => chunk.text).join("\n\n");

const stream = await client.chat.completions.create({
  model: process.env.RELAPSE_MODEL ?? "gemma-3-270m",
  messages: [
    { role: "system", content: `Answer from this context only:\n${context}` },
    { role: "user", content: "When did the bridge open?" },
  ],
  stream: true,
  stream_options: { include_usage: true },
  max_tokens: 64,
  // The relapse request object: the SDK sends unknown body fields as they are.
  // @ts-expect-error: not a field of OpenAI's own API
  relapse: { chunks, max_iterations: 3, release: "sentence" },
});

let text = "";
let report = null;
for await (const chunk of stream) {
  const delta = chunk.choices[0]?.delta?.content ?? "";
  text += delta;
  process.stdout.write(delta);
  // The last chunk carries the relapse object beside the summed usage.
  if ("relapse" in chunk) report = /** @type {any} */ (chunk).relapse;
}
process.stdout.write("\n");
if (report === null) throw new Error("the stream ended without its relapse object");
console.log(
  `outcome: ${report.outcome}, grounded: ${report.grounded}, iterations: ${report.iterations}`,
);
for (const finding of report.findings) {
  console.log(`attempt ${finding.iteration}: ${finding.code} ${finding.message}`);
}
for (const citation of report.citations) {
  const [start, end] = citation.answer_offsets;
  console.log(`cited: ${JSON.stringify(text.slice(start, end))} from ${citation.chunk_id}`);
}
console.log(`relapse: ${JSON.stringify(report)}`);
