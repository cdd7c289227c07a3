// fabvote booth: the worker that runs the ballot's Go code (booth.wasm,
// booth/wasm) so that its slow big-number work never blocks the page.
// The page posts {id, fn, args}; the worker answers {id, out}, out being
// what fabvoteBooth[fn](...args) returned: a result or {error, code}.
"use strict";
importScripts("wasm_exec.js");

const ready = (async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("booth.wasm"), go.importObject);
  go.run(instance); // sets self.fabvoteBooth, then serves calls until the page goes
  if (!self.fabvoteBooth) {
    throw new Error("booth.wasm did not start");
  }
})();

self.onmessage = async (e) => {
  const { id, fn, args } = e.data;
  let out;
  try {
    await ready;
    const f = self.fabvoteBooth[fn];
    out = typeof f === "function" ? f(...args) : { error: "booth.wasm has no function " + fn, code: "" };
  } catch (err) {
    out = { error: String(err && err.message ? err.message : err), code: "" };
  }
  self.postMessage({ id, out });
};
