// Unit tests of the workspace's own code: node --test test/
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { readBallots, MAGIC } = require('../workload/ballots');
const { parseTable } = require('../scripts/summary');

function stream(records) {
    const parts = [Buffer.from(MAGIC, 'latin1')];
    for (const r of records) {
        const l = Buffer.alloc(4);
        l.writeUInt32BE(r.length);
        parts.push(l, r);
    }
    return Buffer.concat(parts);
}

function tmpFile(buf) {
    const p = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fvcal-')), 'b.bin');
    fs.writeFileSync(p, buf);
    return p;
}

test('readBallots splits the file between workers, every record once', () => {
    const recs = Array.from({ length: 10 }, (_, i) => Buffer.from(`ballot-${i}`));
    const p = tmpFile(stream(recs));
    const cases = [
        { sel: {}, want: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
        { sel: { offset: 2, count: 5 }, want: [2, 3, 4, 5, 6] },
        { sel: { offset: 2, count: 5, stride: 2, phase: 0 }, want: [2, 4, 6] },
        { sel: { offset: 2, count: 5, stride: 2, phase: 1 }, want: [3, 5] },
        { sel: { offset: 9, count: 0 }, want: [9] },
    ];
    for (const c of cases) {
        const got = readBallots(p, c.sel).map((b) => b.toString());
        assert.deepStrictEqual(got, c.want.map((i) => `ballot-${i}`), JSON.stringify(c.sel));
    }
});

test('readBallots rejects a foreign or truncated file', () => {
    assert.throws(() => readBallots(tmpFile(Buffer.from('NOTBALLOTS'))), /not a fabvote ballot stream/);
    const good = stream([Buffer.from('abc')]);
    assert.throws(() => readBallots(tmpFile(good.subarray(0, good.length - 1))), /record 0/);
});

test('parseTable reads Caliper result rows once per round', () => {
    const log = [
        '+------+',
        '| Name     | Succ | Fail | Send Rate (TPS) | Max Latency (s) | Min Latency (s) | Avg Latency (s) | Throughput (TPS) |',
        '|----------|------|------|-----------------|-----------------|-----------------|-----------------|------------------|',
        '| cast-500 | 498  | 2    | 50.1            | 0.81            | 0.12            | 0.30            | 49.8             |',
        '| cast-500 | 498  | 2    | 50.1            | 0.81            | 0.12            | 0.30            | 49.8             |',
        '| rate-25  | 375  | 0    | 25.0            | 2.50            | 0.40            | -               | 24.9             |',
    ].join('\n');
    const rounds = parseTable(log);
    assert.strictEqual(rounds.length, 2);
    assert.deepStrictEqual(rounds[0], { label: 'cast-500', succ: 498, fail: 2, sendRate: 50.1, maxLatencyS: 0.81, minLatencyS: 0.12, avgLatencyS: 0.3, throughput: 49.8 });
    assert.strictEqual(rounds[1].avgLatencyS, null);
});
