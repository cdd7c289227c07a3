// ballots.js — read a fabvote ballot stream (internal/ballotstream: the magic
// "FVBALL01", then records of a 4-byte big-endian length and one canonical
// ballot). Kept separate from the workload module so it can be tested alone.
'use strict';

const fs = require('fs');

const MAGIC = 'FVBALL01';
const MAX_RECORD = 1 << 20; // generous bound; election.MaxBallotSize is far below

/**
 * Read records [offset, offset+count) of the stream at path whose index i
 * satisfies i % stride === phase (a worker's share). count = 0 means to the end.
 * @param {string} path ballot stream file
 * @param {object} sel {offset, count, stride, phase}
 * @returns {Buffer[]} the selected records, in order
 */
function readBallots(path, sel = {}) {
    const offset = sel.offset || 0;
    const count = sel.count || 0;
    const stride = sel.stride || 1;
    const phase = sel.phase || 0;
    const data = fs.readFileSync(path);
    if (data.length < MAGIC.length || data.toString('latin1', 0, MAGIC.length) !== MAGIC) {
        throw new Error(`${path}: not a fabvote ballot stream (header is not ${MAGIC})`);
    }
    const out = [];
    let pos = MAGIC.length;
    for (let i = 0; pos < data.length; i++) {
        if (pos + 4 > data.length) {
            throw new Error(`${path}: record ${i}: truncated length`);
        }
        const n = data.readUInt32BE(pos);
        pos += 4;
        if (n === 0 || n > MAX_RECORD || pos + n > data.length) {
            throw new Error(`${path}: record ${i}: bad or truncated length ${n}`);
        }
        if (i >= offset && (count === 0 || i < offset + count) && (i - offset) % stride === phase) {
            out.push(data.subarray(pos, pos + n));
        }
        pos += n;
        if (count !== 0 && i + 1 >= offset + count) {
            break;
        }
    }
    return out;
}

module.exports = { readBallots, MAGIC };
