// Runs the booth's WebAssembly module under Node for booth's tests and
// benchmark. Usage:
//
//   node harness.mjs WASM_EXEC_JS BOOTH_WASM INPUT_JSON
//
// INPUT_JSON: {mode: "ballot" | "bench", runs, manifest, style, voterKey,
// token, selections, verify: [ballotB64, …]}. It prints one JSON object:
// for "ballot", what finish returned, finish's answer to a second call on
// the same handle, verify's answer for the ballot and for each of
// input.verify, spoil's answer for the ballot with its opening and with
// an opening of no ciphertext, and tokenStyle's for the token; for "bench", the milliseconds of each precompute and
// finish.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { webcrypto } from "node:crypto";
import { performance } from "node:perf_hooks";

const [wasmExec, wasmPath, inputPath] = process.argv.slice(2);
globalThis.crypto ??= webcrypto;
createRequire(import.meta.url)(wasmExec); // defines globalThis.Go

const go = new Go();
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), go.importObject);
go.run(instance); // main registers fabvoteBooth, then waits for calls
const booth = globalThis.fabvoteBooth;
const input = JSON.parse(readFileSync(inputPath, "utf8"));

// must is a call's answer, or the end of the run if it is a refusal.
function must(name, out) {
  if (out.error !== undefined) {
    console.error(`${name}: ${out.code} ${out.error}`);
    process.exit(1);
  }
  return out;
}

// ballot makes one ballot and times its two phases.
function ballot() {
  const t0 = performance.now();
  const { handle } = must("precompute", booth.precompute(input.manifest, input.style));
  const t1 = performance.now();
  const finished = must("finish", booth.finish(handle, input.voterKey, input.token, JSON.stringify(input.selections)));
  const t2 = performance.now();
  return { handle, finished, precomputeMs: t1 - t0, finishMs: t2 - t1 };
}

let out;
if (input.mode === "bench") {
  out = { precomputeMs: [], finishMs: [] };
  for (let i = 0; i < input.runs; i++) {
    const b = ballot();
    out.precomputeMs.push(b.precomputeMs);
    out.finishMs.push(b.finishMs);
  }
} else {
  const b = ballot();
  out = {
    ...b.finished,
    again: booth.finish(b.handle, input.voterKey, input.token, JSON.stringify(input.selections)),
    verify: booth.verify(input.manifest, b.finished.ballot),
    verifyOthers: (input.verify ?? []).map((other) => booth.verify(input.manifest, other)),
    spoil: booth.spoil(b.finished.ballot, b.finished.opening),
    spoilBad: booth.spoil(b.finished.ballot, '{"ciphertexts":[]}'),
    tokenStyle: booth.tokenStyle(input.token),
  };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
