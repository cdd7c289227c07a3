// fabvote bulletin board: look up a ballot hash from a voter's receipt, or
// a ballot's tracker (a cast ballot's or an audited one's).
// The data is in data/XX.js (XX = the first two hex digits of the hash or
// of the tracker: an entry is in the shards of both), loaded as
// a script because browsers refuse fetch() on file:// pages. The page reads
// q from the fragment (#q=, what the booth links to: a browser never sends
// the fragment, so the board's server never logs a voter's tracker) or
// from the query (?q=) on load, and from the fragment when it changes, so
// that a search can be linked to. A form submission is handled in place so
// that the aria-live region announces the answer, and keeps it in the
// fragment.
(function () {
  "use strict";
  var STATUS = {
    c: { label: "counted", good: true, text: "The verifier checked your ballot and the published result includes it." },
    v: { label: "valid, no result published yet", good: true, text: "The verifier checked your ballot; no result has been published yet." },
    l: { label: "late: not counted", good: false, text: "Your ballot reached the ledger after the tally was made, so the result does not include it." },
    i: { label: "invalid: not counted", good: false, text: "The verifier found your ballot faulty, so the result does not include it." },
    u: { label: "not verified", good: false, text: "The verification stopped before it reached the ballots." },
    s: { label: "audited, not counted", good: true, text: "You audited this ballot in the booth: its choice and randomness are published so that anyone can check that the booth encrypted your choice. It is never counted; the ballot you cast after it is." }
  };
  // An entry: [hash, block, position, transaction id, status, reason,
  // tracker, revealed choice (an audited ballot only)].
  var shards = {};
  var waiting = {};
  window.fabvoteShard = function (prefix, rows) {
    shards[prefix] = rows;
  };

  var form = document.querySelector("form.search");
  var input = document.getElementById("q");
  var out = document.getElementById("result");

  function el(tag, text) {
    var e = document.createElement(tag);
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  // show replaces the live region's content in one step, so that it is
  // announced once and whole (aria-atomic).
  function show(kind, heading, nodes) {
    var box = document.createDocumentFragment();
    box.appendChild(el("h2", heading));
    nodes.forEach(function (n) { box.appendChild(n); });
    out.className = "result-box " + kind;
    out.replaceChildren(box);
  }

  function fact(dl, term, value, mono) {
    dl.appendChild(el("dt", term));
    var dd = el("dd");
    dd.appendChild(mono ? el("code", value) : document.createTextNode(value));
    dl.appendChild(dd);
  }

  function found(row) {
    var st = STATUS[row[4]] || STATUS.u;
    var dl = el("dl");
    dl.className = "facts";
    if (row[0]) { fact(dl, "Ballot hash", row[0], true); }
    if (row[6]) { fact(dl, "Tracker", row[6], true); }
    if (row[7]) { fact(dl, "Revealed choice", row[7]); }
    fact(dl, "Recorded in block", String(row[1]) + ", transaction number " + String(row[2]) + " of the block");
    fact(dl, "Transaction id", row[3], true);
    fact(dl, "Status", st.label + (row[5] ? " (" + row[5] + ")" : ""));
    var what = row[4] === "s" ? "Found: your audited ballot was published (" : "Found: your ballot was recorded (";
    show(st.good && !row[5] ? "ok" : "bad", what + st.label + ")", [el("p", st.text), dl]);
  }

  function lookup(hash) {
    var prefix = hash.slice(0, 2);
    var rows = shards[prefix] || [];
    var hits = rows.filter(function (r) { return r[0] === hash || r[6] === hash; });
    if (hits.length === 0) {
      show("bad", "Not found", [
        el("p", "No ballot with the hash " + hash + " is recorded in this election, and no ballot has it as its tracker."),
        el("p", "Check that you copied the whole hash from your receipt. If it is right, your ballot was not recorded: keep your receipt and tell the election authority or an observer.")
      ]);
      return;
    }
    // Two ballots with one hash cannot both be honest; show only the first
    // and say so rather than hide either.
    found(hits[0]);
    if (hits.length > 1) {
      out.appendChild(el("p", "Warning: " + hits.length + " ballots in the record have this hash or tracker; see the list of all ballots and of audited ballots."));
    }
  }

  function load(prefix, done) {
    if (shards[prefix]) { done(true); return; }
    if (waiting[prefix]) { waiting[prefix].push(done); return; }
    waiting[prefix] = [done];
    var s = document.createElement("script");
    s.src = "data/" + prefix + ".js";
    function finish(ok) {
      var cbs = waiting[prefix];
      delete waiting[prefix];
      cbs.forEach(function (cb) { cb(ok && !!shards[prefix]); });
    }
    s.onload = function () { finish(true); };
    s.onerror = function () { finish(false); };
    document.head.appendChild(s);
  }

  function search(raw) {
    var hash = raw.replace(/\s+/g, "").toLowerCase();
    if (hash === "") {
      show("bad", "Please enter a ballot hash or tracker", [el("p", "Paste the ballot hash from your receipt, or the tracker the booth showed, into the box, then choose Check.")]);
      return;
    }
    if (!/^[0-9a-f]{64}$/.test(hash)) {
      var why = /[^0-9a-f]/.test(hash)
        ? "It contains characters other than 0–9 and a–f."
        : "It has " + hash.length + " characters instead of 64.";
      show("bad", "Not a ballot hash or tracker", [el("p", "This is not a ballot hash or tracker: each is exactly 64 characters, digits 0–9 and letters a–f. " + why)]);
      return;
    }
    show("", "Searching…", []);
    load(hash.slice(0, 2), function (ok) {
      if (!ok) {
        show("bad", "The search data could not be loaded", [el("p", "The file data/" + hash.slice(0, 2) + ".js of this site is missing. Use the list of all ballots instead.")]);
        return;
      }
      lookup(hash);
    });
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    search(input.value);
    try {
      history.replaceState(null, "", window.location.pathname + "#q=" + encodeURIComponent(input.value.trim()));
    } catch (e) {
      // Some browsers refuse to change a file:// page's address; the answer
      // is shown anyway, only the address is not a link to it.
    }
  });

  // linked is the q of the page's address: the fragment's, else the
  // query's; null when neither has one.
  function linked() {
    var q = new URLSearchParams(window.location.hash.slice(1)).get("q");
    return q !== null ? q : new URLSearchParams(window.location.search).get("q");
  }

  function searchLinked() {
    var q = linked();
    if (q !== null) {
      input.value = q;
      search(q);
    }
  }

  // A link followed in the same tab may change only the fragment, which
  // does not reload the page.
  window.addEventListener("hashchange", searchLinked);
  searchLinked();
})();
