// A webhook receiver in plain Node.js (18+, no dependencies) that verifies
// deliveries as Standard Webhooks describes: the HMAC-SHA256 signature of
// "{webhook-id}.{webhook-timestamp}.{body}" under the subscription's secret,
// a timestamp within 5 minutes, and each webhook-id processed once.
//
//   VOICEAGENT_WEBHOOK_SECRET=whsec_... PORT=3000 node receiver.mjs
//
// It prints "listening on http://127.0.0.1:PORT/webhooks" once it serves
// (PORT=0 picks a free port). VERIFY=0 turns every check off: the receiver
// then accepts everything, which `voiceagent-mock check-receiver` fails.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const secret = process.env.VOICEAGENT_WEBHOOK_SECRET ?? "";
const verify = process.env.VERIFY !== "0";
const tolerance = 5 * 60; // seconds
if (verify && !secret.startsWith("whsec_")) {
  console.error("set VOICEAGENT_WEBHOOK_SECRET to the subscription's signing secret (whsec_...)");
  process.exit(2);
}
const key = Buffer.from(secret.slice("whsec_".length), "base64");
const processed = new Set(); // webhook-ids done; use a shared store in production

// verified reports why a delivery is refused, or "" when it verifies.
function refusal(headers, body) {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs) return "missing webhook headers";
  const sent = Number(ts);
  if (!Number.isInteger(sent)) return "invalid webhook-timestamp";
  if (Math.abs(Date.now() / 1000 - sent) > tolerance) return "timestamp outside tolerance";
  const want = createHmac("sha256", key).update(`${id}.${ts}.`).update(body).digest();
  for (const sig of sigs.split(" ")) {
    const [version, value] = sig.split(",", 2);
    const got = Buffer.from(value ?? "", "base64");
    if (version === "v1" && got.length === want.length && timingSafeEqual(got, want)) return "";
  }
  return "invalid signature";
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const answer = (status, message) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(message));
    };
    if (verify) {
      const why = refusal(req.headers, body);
      if (why) return answer(why.startsWith("missing") || why.startsWith("invalid webhook") ? 400 : 401, { error: why });
      const id = req.headers["webhook-id"];
      if (processed.has(id)) return answer(200, { status: "duplicate" });
      processed.add(id);
    }
    let event;
    try {
      event = JSON.parse(body.toString("utf8"));
    } catch {
      return answer(400, { error: "invalid body" });
    }
    // Handle event.event and event.data here; answer 2xx for types you do not handle.
    answer(200, { status: "processed", event: event.event });
  });
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
