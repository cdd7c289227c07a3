#!/usr/bin/env node
// summary.js — extract Caliper's result table ("### Test result ###": Name,
// Succ, Fail, Send Rate, Max/Min/Avg Latency, Throughput) from a Caliper log
// into JSON, so scripts can assert on it and bench/report can tabulate it.
//
//   node scripts/summary.js CALIPER_LOG OUT_JSON [--label CONFIG] [--trial N]
'use strict';

const fs = require('fs');

function parseTable(text) {
    const rounds = [];
    const seen = new Set();
    for (const raw of text.split('\n')) {
        // eslint-disable-next-line no-control-regex
        const line = raw.replace(/\x1b\[[0-9;]*m/g, '').trim();
        if (!line.startsWith('|') || line.startsWith('|-')) {
            continue;
        }
        const cells = line.split('|').slice(1, -1).map((c) => c.trim());
        if (cells.length !== 8 || cells[0] === 'Name' || !/^\d+$/.test(cells[1])) {
            continue;
        }
        // The table is printed per round and again in the summary: keep the first of each label.
        if (seen.has(cells[0])) {
            continue;
        }
        seen.add(cells[0]);
        const num = (s) => (s === '-' ? null : Number(s));
        rounds.push({
            label: cells[0],
            succ: num(cells[1]),
            fail: num(cells[2]),
            sendRate: num(cells[3]),
            maxLatencyS: num(cells[4]),
            minLatencyS: num(cells[5]),
            avgLatencyS: num(cells[6]),
            throughput: num(cells[7]),
        });
    }
    return rounds;
}

function main(argv) {
    const args = argv.slice(2);
    const pos = [];
    const opt = {};
    for (let i = 0; i < args.length; i++) {
        if (args[i].startsWith('--')) {
            opt[args[i].slice(2)] = args[++i];
        } else {
            pos.push(args[i]);
        }
    }
    if (pos.length !== 2) {
        process.stderr.write('usage: summary.js CALIPER_LOG OUT_JSON [--label CONFIG] [--trial N]\n');
        process.exit(2);
    }
    const rounds = parseTable(fs.readFileSync(pos[0], 'utf8'));
    if (rounds.length === 0) {
        process.stderr.write(`summary: no Caliper result table in ${pos[0]}\n`);
        process.exit(1);
    }
    const out = { version: 1, tool: 'caliper', label: opt.label || '', trial: Number(opt.trial || 0), rounds };
    fs.writeFileSync(pos[1] + '.tmp', JSON.stringify(out, null, 2) + '\n');
    fs.renameSync(pos[1] + '.tmp', pos[1]);
    for (const r of rounds) {
        process.stdout.write(`${r.label}: ${r.succ} succeeded, ${r.fail} failed, send ${r.sendRate} tx/s, throughput ${r.throughput} tx/s, avg latency ${r.avgLatencyS} s\n`);
    }
}

if (require.main === module) {
    main(process.argv);
}
module.exports = { parseTable };
