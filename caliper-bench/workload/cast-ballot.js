// cast-ballot.js — Caliper workload module: each transaction casts one
// pre-generated fabvote ballot (`make ballots`) with CastBallot.
//
// Round arguments (benchmark YAML, `workload.arguments`):
//   ballots   path of the ballot stream; the environment variable FABVOTE_BALLOTS
//             overrides it (the make targets set it)
//   offset    index of the round's first ballot in the file (rounds of one run
//             must not overlap: a ballot can be cast once per ledger); the
//             environment variable FABVOTE_BALLOTS_OFFSET is added to it
//   count     ballots for the round (must be ≥ the round's txNumber)
//   readOnly  true: evaluate instead of submit (endorse-only, the thesis's
//             skip-commit; nothing is written)
//   contractId, channel  default ballot / fabvote
// Worker w of W casts ballots offset+w, offset+w+W, …: every ballot once.
'use strict';

const { WorkloadModuleBase } = require('@hyperledger/caliper-core');
const { readBallots } = require('./ballots');

class CastBallotWorkload extends WorkloadModuleBase {
    async initializeWorkloadModule(workerIndex, totalWorkers, roundIndex, roundArguments, sutAdapter, sutContext) {
        await super.initializeWorkloadModule(workerIndex, totalWorkers, roundIndex, roundArguments, sutAdapter, sutContext);
        const args = roundArguments || {};
        const file = process.env.FABVOTE_BALLOTS || args.ballots;
        if (!file) {
            throw new Error('cast-ballot: no ballot file: set FABVOTE_BALLOTS or the round argument "ballots"');
        }
        this.ballots = readBallots(file, {
            offset: Number(args.offset || 0) + Number(process.env.FABVOTE_BALLOTS_OFFSET || 0),
            count: Number(args.count || 0),
            stride: totalWorkers,
            phase: workerIndex,
        });
        if (this.ballots.length === 0) {
            throw new Error(`cast-ballot: worker ${workerIndex} got no ballots from ${file} (offset ${args.offset}, count ${args.count})`);
        }
        this.next = 0;
        this.readOnly = args.readOnly === true || args.readOnly === 'true';
        this.contractId = args.contractId || 'ballot';
        this.channel = args.channel || 'fabvote';
    }

    async submitTransaction() {
        if (this.next >= this.ballots.length) {
            throw new Error(`cast-ballot: worker ${this.workerIndex} ran out of ballots after ${this.next}: give the round a larger count or a smaller txNumber`);
        }
        const ballot = this.ballots[this.next++];
        return this.sutAdapter.sendRequests({
            contractId: this.contractId,
            channel: this.channel,
            contractFunction: 'CastBallot',
            contractArguments: [ballot],
            readOnly: this.readOnly,
            timeout: 120,
        });
    }
}

function createWorkloadModule() {
    return new CastBallotWorkload();
}

module.exports.createWorkloadModule = createWorkloadModule;
