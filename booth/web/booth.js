// fabvote booth: the voter's page. It signs the voter in with the
// registrar (same origin), makes the ballot with the election's own Go code
// in a Web Worker (worker.js, booth.wasm), and sends it to a ballot box
// (config.json's boxURL): cast, or audit and make another. The voter's key
// is made here and never leaves the page; the registrar gets only its
// public key. Every visible string comes from messages.json.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const STEPS = ["step-start", "step-ballot", "step-check", "step-audited", "step-receipt"];
  const REGISTER_PATH = "/v1/register";

  let messages = {};
  let config = null;
  const voter = { pem: "", pub: "", token: "" };
  const election = { text: "", manifest: null, style: 0 };
  let pendingHandle = null; // promise of the precomputation's handle
  // made is the finished ballot ({ballot, tracker, ballotHash, opening}
  // from finish) and what the voter chose to do with it. fate is "" until
  // a click on Cast or Audit, which sets it before anything else happens:
  // "opened" (its opening may be public, so it must never be cast) or
  // "cast" (it may be on the ledger, so it must never be opened). spoiled
  // is its spoiled form once made, sent again as is on a retry; tries
  // counts the casts sent.
  let made = null;
  let madeSelections = null;
  let inProgress = false; // signed in and not yet cast: leaving loses the key

  // A UserError is a failure the voter can act on: a message key and its values.
  class UserError extends Error {
    constructor(key, vars) {
      super(key);
      this.key = key;
      this.vars = vars || {};
    }
  }

  function t(key, vars) {
    let s = messages[key] || key;
    for (const [k, v] of Object.entries(vars || {})) {
      s = s.split("{" + k + "}").join(String(v));
    }
    return s;
  }

  function el(tag, text) {
    const e = document.createElement(tag);
    if (text !== undefined) {
      e.textContent = text;
    }
    return e;
  }

  // --- the worker --------------------------------------------------------

  const worker = new Worker("worker.js");
  const calls = new Map();
  let nextCall = 0;
  worker.onmessage = (e) => {
    const done = calls.get(e.data.id);
    calls.delete(e.data.id);
    done(e.data.out);
  };
  // Before sign-in a reload is harmless; after it, it would lose the key.
  worker.onerror = (e) => showError(new UserError(voter.token ? "errBooth" : "errLoad", { detail: e.message || "booth.wasm" }));

  // call runs fabvoteBooth[fn](...args) in the worker; a refusal rejects
  // with {error, code}.
  function call(fn, ...args) {
    return new Promise((resolve, reject) => {
      const id = ++nextCall;
      calls.set(id, (out) => (out && out.error !== undefined ? reject(out) : resolve(out)));
      worker.postMessage({ id, fn, args });
    });
  }

  // --- language, steps, progress, errors -----------------------------------

  function pickLanguage(all) {
    const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
    for (const l of wanted) {
      const base = String(l).toLowerCase().split("-")[0];
      if (all[base]) {
        return base;
      }
    }
    return "en";
  }

  function applyMessages() {
    for (const e of document.querySelectorAll("[data-msg]")) {
      e.textContent = t(e.dataset.msg);
    }
    for (const e of document.querySelectorAll("[data-msg-aria]")) {
      e.setAttribute("aria-label", t(e.dataset.msgAria));
    }
  }

  function show(step) {
    for (const s of STEPS) {
      $(s).hidden = s !== step;
    }
    $(step).querySelector("h2").focus();
  }

  let working = 0;
  function progress(statusKey) {
    working++;
    $("progress-box").hidden = false;
    $("status").textContent = t(statusKey);
  }
  function done(statusKey) {
    working = Math.max(0, working - 1);
    $("progress-box").hidden = working === 0;
    if (statusKey) {
      $("status").textContent = t(statusKey);
    }
  }

  function busy(on) {
    for (const b of document.querySelectorAll("button")) {
      b.disabled = on;
    }
  }

  function showError(err) {
    const msg = err instanceof UserError ? t(err.key, err.vars) : t("errBooth", { detail: (err && (err.error || err.message)) || String(err) });
    $("error-text").textContent = msg;
    $("error").hidden = false;
  }
  function clearError() {
    $("error").hidden = true;
    $("error-text").textContent = "";
  }

  // group splits a hex string in groups of four, for reading aloud.
  function group(hex) {
    return hex.match(/.{1,4}/g).join(" ");
  }

  // --- network ---------------------------------------------------------------

  async function getJSON(url) {
    const r = await fetch(url, { cache: "no-store" });
    if (!r.ok) {
      throw new Error(url + ": HTTP " + r.status);
    }
    return r.json();
  }

  async function register(voterID, code, voterPub) {
    let r;
    try {
      r = await fetch(REGISTER_PATH, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ electionID: config.electionID, voterID, code, voterPub }),
      });
    } catch (e) {
      throw new UserError("errRegistrarDown");
    }
    const body = await r.json().catch(() => ({}));
    if (r.ok) {
      return body;
    }
    const byCode = { WRONG: "errWrongCode", USED: "errCodeUsed", FULL: "errRollFull", ELECTION: "errRegistrarElection" };
    if (r.status === 429 || body.code === "RATE") {
      throw new UserError("errRateLimited", { seconds: r.headers.get("Retry-After") || "60" });
    }
    if (byCode[body.code]) {
      throw new UserError(byCode[body.code]);
    }
    if (r.status >= 500) {
      throw new UserError("errRegistrarDown");
    }
    throw new UserError("errBooth", { detail: body.error || "HTTP " + r.status });
  }

  function boxURL(path) {
    return config.boxURL.replace(/\/+$/, "") + path;
  }

  async function boxFetch(path, init) {
    let r;
    try {
      r = await fetch(boxURL(path), init);
    } catch (e) {
      throw new UserError("errBoxDown");
    }
    if (r.ok) {
      return r;
    }
    const body = await r.json().catch(() => ({}));
    const code = body.code || "";
    const byCode = { WINDOW: "errWindow", DUPLICATE: "errDuplicate", SPOILED: "errSpoiledCast", COMMIT_UNKNOWN: "errCommitUnknown" };
    if (r.status === 429 || code === "RATE") {
      throw new UserError("errRateLimited", { seconds: r.headers.get("Retry-After") || "60" });
    }
    if (byCode[code]) {
      throw new UserError(byCode[code]);
    }
    if (r.status >= 500 || code === "UNAVAILABLE") {
      throw new UserError("errBoxDown");
    }
    throw new UserError("errRefused", { code: code || "HTTP " + r.status, detail: body.error || "" });
  }

  async function boxPost(path, body) {
    const r = await boxFetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    return r.json();
  }

  // --- the voter's key -------------------------------------------------------

  function base64(bytes) {
    let s = "";
    for (const b of new Uint8Array(bytes)) {
      s += String.fromCharCode(b);
    }
    return btoa(s);
  }

  // newVoterKey makes the voter's P-256 key: the PKCS#8 PEM for the
  // worker, and the public point (65 bytes, base64) for the registrar.
  async function newVoterKey() {
    const k = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
    const pub = await crypto.subtle.exportKey("raw", k.publicKey);
    const pkcs8 = base64(await crypto.subtle.exportKey("pkcs8", k.privateKey));
    const pem = "-----BEGIN PRIVATE KEY-----\n" + pkcs8.match(/.{1,64}/g).join("\n") + "\n-----END PRIVATE KEY-----\n";
    return { pem, pub: base64(pub) };
  }

  // --- the ballot ------------------------------------------------------------

  function styleContests() {
    const m = election.manifest;
    return m.styles[election.style].contests.map((id) => m.contests.find((c) => c.id === id));
  }

  function hint(c) {
    if (c.minSelections === c.maxSelections) {
      return c.maxSelections === 1 ? t("chooseOne") : t("chooseExactly", { min: c.minSelections });
    }
    return t("chooseRange", { min: c.minSelections, max: c.maxSelections });
  }

  function choice(type, name, id, label, value) {
    const row = el("div");
    row.className = "choice";
    const input = el("input");
    input.type = type;
    input.name = name;
    input.id = id;
    input.value = value;
    const lab = el("label", label);
    lab.htmlFor = id;
    row.append(input, lab);
    return row;
  }

  function renderBallot() {
    const box = $("contests");
    box.replaceChildren();
    styleContests().forEach((c, i) => {
      const fs = el("fieldset");
      const h = el("p", hint(c));
      h.id = "hint-" + i;
      h.className = "hint";
      fs.setAttribute("aria-describedby", h.id);
      fs.append(el("legend", c.title), h);
      const type = c.maxSelections === 1 ? "radio" : "checkbox";
      c.options.forEach((name, j) => fs.append(choice(type, "c" + i, "c" + i + "-o" + j, name, String(j))));
      if (c.blank) {
        fs.append(choice(type, "c" + i, "c" + i + "-blank", t("blankOption"), "blank"));
      }
      box.append(fs);
    });
  }

  // readSelections is the form's choice, one selection per contest of the
  // style; whether it is allowed is the Go code's to say (finish).
  function readSelections() {
    return styleContests().map((c, i) => {
      const checked = [...document.querySelectorAll('input[name="c' + i + '"]:checked')].map((e) => e.value);
      if (checked.includes("blank")) {
        return { blank: true };
      }
      return { options: checked.map(Number).sort((a, b) => a - b) };
    });
  }

  function describe(sels) {
    return styleContests().map((c, i) => {
      const s = sels[i];
      const what = s.blank ? t("blankChoice") : s.options.map((j) => c.options[j]).join(", ") || t("blankChoice");
      return c.title + ": " + what;
    });
  }

  // mark records a moment for the benchmark (performance.getEntriesByName).
  function mark(name) {
    performance.mark("fabvote:" + name);
  }

  function precompute() {
    progress("statusPreparing");
    mark("precompute-start");
    pendingHandle = call("precompute", election.text, election.style).then(
      (r) => {
        mark("precompute-end");
        done("statusPrepared");
        return r.handle;
      },
      (err) => {
        done();
        pendingHandle = null;
        throw err;
      },
    );
    pendingHandle.catch(showError);
  }

  // --- the steps -------------------------------------------------------------

  // signIn registers the voter's key and loads the ballot. The key is made
  // once per page: a retry after a failure later on (a box that does not
  // answer) registers the same key again, which the registrar answers with
  // the same token, where a new key would be refused as a used code.
  async function signIn(voterID, code) {
    if (!voter.pem) {
      Object.assign(voter, await newVoterKey());
    }
    const tok = await register(voterID, code, voter.pub);
    voter.token = tok.token;
    election.style = (await call("tokenStyle", voter.token)).style;
    const r = await boxFetch("/v1/elections/" + encodeURIComponent(config.electionID) + "/manifest", {});
    election.text = await r.text();
    election.manifest = JSON.parse(election.text);
    $("election").textContent = t("electionLine", { title: election.manifest.title });
    precompute();
    renderBallot();
    inProgress = true;
  }

  async function onStart(ev) {
    ev.preventDefault();
    clearError();
    const voterID = $("voter-id").value.trim();
    const code = $("code").value.trim();
    if (!voterID || !code) {
      showError(new UserError("errWrongCode"));
      $(voterID ? "code" : "voter-id").focus();
      return;
    }
    await step("statusRegistering", "step-ballot", () => signIn(voterID, code));
  }

  async function makeBallot() {
    mark("make");
    if (!pendingHandle) {
      precompute();
    }
    const handle = await pendingHandle;
    const sels = readSelections();
    try {
      made = await call("finish", handle, voter.pem, voter.token, JSON.stringify(sels));
    } catch (err) {
      throw err.code === "TOKEN" ? err : new UserError("errSelection");
    }
    pendingHandle = null;
    made.fate = "";
    made.tries = 0;
    madeSelections = sels;
    $("check-tracker").textContent = group(made.tracker);
    renderCheck();
    requestAnimationFrame(() => mark("tracker-shown"));
  }

  // renderCheck offers what the ballot's fate allows: Cast or Audit while
  // it has none; after Audit, only publishing the same audit again or a new
  // ballot; after Cast, only casting the same ballot again.
  function renderCheck() {
    const fate = made ? made.fate : "";
    $("cast-button").hidden = fate !== "";
    $("audit-button").hidden = fate !== "";
    $("retry-cast-button").hidden = fate !== "cast";
    $("retry-audit-button").hidden = fate !== "opened";
    $("new-ballot-button").hidden = fate !== "opened";
    $("check-explain").hidden = fate !== "";
    $("check-fate").hidden = fate === "";
    $("check-fate").textContent = fate ? t(fate === "opened" ? "openedNote" : "castNote") : "";
  }

  // seal gives the ballot its fate, once: a ballot opened is never cast,
  // and one cast is never opened. It says whether it did.
  function seal(fate) {
    if (!made || made.fate !== "") {
      return false;
    }
    made.fate = fate;
    renderCheck();
    return true;
  }

  // afterFailure shows what the ballot still allows and puts the focus on
  // the first thing the voter can do, since the button pressed may be gone.
  function afterFailure() {
    renderCheck();
    const next = [...document.querySelectorAll("#step-check button")].find((b) => !b.hidden);
    if (next) next.focus();
  }

  async function audit() {
    if (made.fate !== "opened") {
      throw new Error("an audit of a ballot not opened for it");
    }
    if (!made.spoiled) {
      made.spoiled = (await call("spoil", made.ballot, made.opening)).spoiled;
    }
    const answer = await boxPost("/v1/spoiled", made.spoiled);
    if (answer.tracker !== made.tracker) {
      throw new UserError("errBoxFaulty", { tracker: group(made.tracker) });
    }
    const list = $("audited-choice");
    list.replaceChildren(...describe(madeSelections).map((line) => el("li", line)));
    $("audited-tracker").textContent = group(made.tracker);
    boardLink("audited-board", boardSearch(made.tracker));
  }

  // cast sends the ballot and checks the receipt against the ballot's own
  // tracker, hash and pseudonym. DUPLICATE on a retry means an earlier try was
  // recorded: the ballot is cast, with no receipt from the box.
  async function cast() {
    if (made.fate !== "cast") {
      throw new Error("a cast of a ballot not sealed for it");
    }
    made.tries++;
    let r = null;
    try {
      r = await boxPost("/v1/ballots", JSON.stringify({ ballot: made.ballot }));
    } catch (err) {
      if (!(err instanceof UserError && err.key === "errDuplicate" && made.tries > 1)) {
        throw err;
      }
    }
    if (r && (r.tracker !== made.tracker || r.ballotHash !== made.ballotHash || r.pseudonym !== made.pseudonym)) {
      throw new UserError("errBoxFaulty", { tracker: group(made.tracker) });
    }
    showReceipt(r);
    inProgress = false;
  }

  // showReceipt shows the ballot's own tracker and hash, and the box's
  // transaction and block when it answered with them.
  function showReceipt(r) {
    $("receipt-tracker").textContent = group(made.tracker);
    $("receipt-hash").textContent = made.ballotHash;
    $("receipt-pseudonym").textContent = made.pseudonym;
    $("receipt-tx").textContent = r ? r.txID : "";
    $("receipt-block").textContent = r ? String(r.block) : "";
    $("receipt-tx-row").hidden = !r;
    $("receipt-block-row").hidden = !r;
    $("receipt-earlier").hidden = !!r;
    boardLink("receipt-board", boardSearch(made.tracker));
  }

  // boardSearch is the board's search for a tracker, or "" when the
  // deployment names no board. The tracker is in the fragment, which the
  // browser keeps to itself: the board's server never logs it.
  function boardSearch(tracker) {
    return config.boardURL ? config.boardURL.replace(/\/+$/, "") + "/search.html#q=" + tracker : "";
  }

  // boardLink points a link at the bulletin board, or hides its paragraph
  // when the deployment names no board.
  function boardLink(id, href) {
    $(id).parentElement.hidden = !href;
    if (href) $(id).href = href;
  }

  // step runs one action with the progress shown and the buttons disabled,
  // then shows the next step, or the error and stays. It says which.
  async function step(statusKey, next, action, doneKey) {
    clearError();
    busy(true);
    progress(statusKey);
    try {
      await action();
      done(doneKey);
      show(next);
      return true;
    } catch (err) {
      done();
      $("status").textContent = "";
      showError(err);
      return false;
    } finally {
      busy(false);
    }
  }

  async function publishAudit() {
    if (await step("statusAuditing", "step-audited", audit, "statusAudited")) {
      newBallot(false);
    } else {
      afterFailure();
    }
  }

  async function sendCast() {
    if (!(await step("statusCasting", "step-receipt", cast, "statusCast"))) {
      afterFailure();
    }
  }

  // newBallot forgets the opened ballot and precomputes a fresh one, while
  // the voter reads the audit (or at once, with show).
  function newBallot(showBallot) {
    made = null;
    if (!pendingHandle) {
      precompute();
    }
    if (showBallot) {
      clearError();
      show("step-ballot");
    }
  }

  // onLeave asks the browser to warn before the page goes while a ballot
  // is in progress: the voter's key lives only in this page.
  function onLeave(ev) {
    if (inProgress) {
      ev.preventDefault();
      ev.returnValue = "";
    }
  }

  async function init() {
    try {
      const all = await getJSON("messages.json");
      const lang = pickLanguage(all);
      messages = all[lang];
      document.documentElement.lang = lang;
      applyMessages();
      config = await getJSON("config.json");
    } catch (err) {
      showError(new UserError("errLoad", { detail: err.message }));
      return;
    }
    $("start-form").addEventListener("submit", onStart);
    $("ballot-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      step("statusMaking", "step-check", makeBallot, "statusMade");
    });
    // A click on Cast or Audit seals the ballot's fate before any await.
    $("cast-button").addEventListener("click", () => seal("cast") && sendCast());
    $("audit-button").addEventListener("click", () => seal("opened") && publishAudit());
    $("retry-cast-button").addEventListener("click", sendCast);
    $("retry-audit-button").addEventListener("click", publishAudit);
    $("new-ballot-button").addEventListener("click", () => newBallot(true));
    $("again-button").addEventListener("click", () => show("step-ballot"));
    window.addEventListener("beforeunload", onLeave);
    document.body.classList.add("ready");
  }

  init();
})();
