/**
 * The consensus stage (docs/reads.md "Consensus reads"): a read that asks for it goes to `operators`
 * distinct operators at once, each through the request loop restricted to that operator's
 * endpoints (its own failover, retries and reputation among them; never hedged, so it never
 * lands on another operator). Their answers are grouped by the method's agreement rule
 * (`consensus/agreement.ts`); `operators` agreeing answers are the answer, and an answer
 * outside them is an integrity strike on its endpoint. A disagreement asks one more operator
 * while the retry budget allows, else the call fails `CONSENSUS_FAILED`. The stage is on
 * chains of their own that only consensus calls take (one per `operators`, behind the cache
 * and coalescing): everyone else's path does not contain it.
 */
import type { ConsensusOptions, RequestOptions } from '../api/request-options.js';
import { classifyAnswers, agreementRuleOf, type AnswerClass, type DriftAllowance } from '../consensus/agreement.js';
import type { ConsensusCounters } from '../consensus/consensus-snapshot.js';
import { isTransportError, TransportError } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import type { CallContext } from './call-context.js';
import type { PipelineHost } from './host.js';
import type { CallHandler, Stage } from './stage.js';

/** An operator a consensus read may ask: a call to it avoids every other operator's endpoints. */
export interface OperatorChoice {
  readonly operator: string;
  readonly others: ReadonlySet<string>;
}

/** What the stage needs from the pool. */
export interface ConsensusParts {
  /** The operators serving `kind` that admission could use now, best first. */
  operatorsOf(kind: RequestKind): readonly OperatorChoice[];
  /** A call's time budget when it does not set `timeoutMs`. */
  timeoutMsOf(call: CallContext, options: RequestOptions): number;
  readonly allowance: DriftAllowance;
  /** An answer outside the agreeing ones: an integrity strike on its endpoint (invalid-rate detector, reputation). */
  strike(endpointId: string, kind: RequestKind): void;
  readonly counters: ConsensusCounters;
}

interface Answer {
  readonly value: unknown;
  readonly endpointId: string;
}

/** Errors that end the whole call: nobody else would answer otherwise. */
const FINAL_CODES: ReadonlySet<string> = new Set(['ABORTED', 'POOL_CLOSED', 'INVALID_INPUT']);

export function consensusStage(host: PipelineHost, parts: ConsensusParts): Stage<CallHandler> {
  return (next) => async (call, options) => {
    try {
      const result = await agreedRead(host, parts, next, call, options, call.consensus as ConsensusOptions);
      // Identical consensus reads that shared this one copy the answer before its caller can touch it.
      call.onSettled?.succeeded(result);
      return result;
    } finally {
      call.onSettled?.settled();
    }
  };
}

async function agreedRead(host: PipelineHost, parts: ConsensusParts, next: CallHandler, call: CallContext, options: RequestOptions, consensus: ConsensusOptions): Promise<unknown> {
  const { clock } = host;
  const { counters } = parts;
  const quorum = consensus.operators;
  const deadlineMs = clock.now() + parts.timeoutMsOf(call, options);
  const choices = parts.operatorsOf(call.kind);
  counters.calls++;
  if (choices.length < quorum) {
    counters.failed++;
    throw consensusFailed(call, quorum, 'too-few-operators', [], choices.length);
  }
  const rule = agreementRuleOf(call.method);
  const answers: Answer[] = [];
  let taken = 0;
  let lastError: unknown;
  /** One answer from the next operator not asked yet (another in turn when one fails): bounded by the operators. */
  const askNext = async (): Promise<void> => {
    while (taken < choices.length) {
      const leftMs = deadlineMs - clock.now();
      if (!(leftMs > 0)) return;
      const asked: CallContext = { ...call, pinned: true, consensus: undefined, excluded: choices[taken++]!.others, attempts: [], onSettled: undefined, answeredBy: undefined };
      try {
        const value = await next(asked, { ...options, timeoutMs: leftMs });
        answers.push({ value, endpointId: asked.answeredBy! });
        return;
      } catch (error) {
        if (isTransportError(error) && FINAL_CODES.has(error.code)) throw error;
        lastError = error;
      } finally {
        call.attempts.push(...asked.attempts);
      }
    }
  };
  await Promise.all(Array.from({ length: quorum }, askNext));
  let classes = classifyAnswers(answers, rule, parts.allowance);
  let winner = classes.find((group) => group.members.length >= quorum);
  const disagreed = classes.length > 1;
  // A disagreement: one more operator's word, while the budget retries and hedges share allows.
  while (winner === undefined && classes.length > 1 && taken < choices.length && host.budgetOf(call.kind).tryRetry(clock.now())) {
    counters.tieBreaks++;
    await askNext();
    classes = classifyAnswers(answers, rule, parts.allowance);
    winner = classes.find((group) => group.members.length >= quorum);
  }
  // The answers outside the agreeing ones: none when nobody won (who lied is not known then).
  const outliers = winner === undefined ? [] : classes.flatMap((group) => (group === winner ? [] : group.members.map((member) => member.endpointId)));
  if (disagreed) {
    counters.disagreed++;
    if (host.events.has('consensus')) {
      host.events.emit('consensus', { atMs: clock.now(), method: call.method, kind: call.kind, outcome: winner === undefined ? 'failed' : 'resolved', answers: answerClassesOf(classes), outliers });
    }
  }
  if (winner === undefined) {
    counters.failed++;
    if (answers.length === 0) throw lastError ?? new TransportError('DEADLINE_EXCEEDED', `'${call.method}' had no time left to ask an operator`, { context: { timeoutMs: parts.timeoutMsOf(call, options) }, method: call.method });
    throw consensusFailed(call, quorum, disagreed ? 'disagreement' : 'too-few-answers', classes, choices.length);
  }
  if (!disagreed) counters.agreed++;
  counters.strikes += outliers.length;
  for (const endpointId of outliers) parts.strike(endpointId, call.kind);
  call.answeredBy = winner.members[0]!.endpointId;
  return winner.value;
}

/** Which endpoint gave which answer class: what errors and events say of the answers (never a value). */
function answerClassesOf(classes: readonly AnswerClass<Answer>[]): { endpointId: string; answerClass: string }[] {
  return classes.flatMap((group) => group.members.map((member) => ({ endpointId: member.endpointId, answerClass: group.label })));
}

function consensusFailed(
  call: CallContext,
  quorum: number,
  reason: 'disagreement' | 'too-few-answers' | 'too-few-operators',
  classes: readonly AnswerClass<Answer>[],
  available: number,
): TransportError<'CONSENSUS_FAILED'> {
  const answers = answerClassesOf(classes);
  const said = answers.map((answer) => `${answer.endpointId}: ${answer.answerClass}`).join(', ');
  const why =
    reason === 'too-few-operators'
      ? `${available} operator(s) can take it now`
      : reason === 'disagreement'
        ? `answers disagree (${said})`
        : `too few operators answered (${said})`;
  return new TransportError('CONSENSUS_FAILED', `'${call.method}' needs ${quorum} operators to agree: ${why}`, {
    context: { operators: quorum, reason, answers },
    method: call.method,
    attempts: call.attempts,
  });
}
