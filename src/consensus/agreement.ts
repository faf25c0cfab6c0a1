/**
 * When two operators' answers to one read agree (docs/reads.md "Consensus reads"): the same value and the
 * same context — and, where honest nodes differ by design, within that method's drift. The
 * drift rules are this one table; a method it does not name must agree exactly (canonical
 * JSON: key order and `bigint` spelling aside), and a Solana answer carrying a context
 * (`{ context: { slot }, value }`) must have the same value at slots within the allowance.
 */

/** How far honest heads may differ: the pool's `health.syncAllowance` per quantity. */
export interface DriftAllowance {
  readonly slot: number;
  readonly block: number;
}

export type AgreementRuleName = 'head' | 'fee-band' | 'context-slot' | 'exact';

/** One row of the table: whether two answers agree, and which of two agreeing answers the caller gets. */
export interface AgreementRule {
  readonly name: AgreementRuleName;
  agree(a: unknown, b: unknown, allowance: DriftAllowance): boolean;
  /** The answer of two that agree the caller gets. */
  pick(a: unknown, b: unknown): unknown;
}

/**
 * A fee may move by 12.5 % from one block to the next (EIP-1559's base-fee step), so two
 * honest nodes one block apart can quote fees that far apart; more is a lie or a broken node.
 */
export const FEE_BAND = 0.125;

/** A quantity as a bigint (`0x` hex, a decimal string, a safe integer or a bigint); undefined otherwise. */
function quantityOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return undefined;
  return BigInt(value);
}

/** JSON with sorted keys and bigints as decimal text: two nodes' spelling of one value is one string. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** A Solana answer's context slot, when it has one. */
function contextSlotOf(value: unknown): bigint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const context = (value as { context?: unknown }).context;
  return typeof context === 'object' && context !== null ? quantityOf((context as { slot?: unknown }).slot) : undefined;
}

const distance = (a: bigint, b: bigint): bigint => (a > b ? a - b : b - a);

function headRule(quantity: keyof DriftAllowance): AgreementRule {
  return {
    name: 'head',
    agree: (a, b, allowance) => {
      const x = quantityOf(a);
      const y = quantityOf(b);
      return x !== undefined && y !== undefined && distance(x, y) <= BigInt(allowance[quantity]);
    },
    // The lower head: both operators have reached it.
    pick: (a, b) => ((quantityOf(a) ?? 0n) <= (quantityOf(b) ?? 0n) ? a : b),
  };
}

const FEE_BAND_RULE: AgreementRule = {
  name: 'fee-band',
  agree: (a, b) => {
    const x = quantityOf(a);
    const y = quantityOf(b);
    if (x === undefined || y === undefined) return false;
    const high = x > y ? x : y;
    // |x − y| ≤ 12.5 % of the higher, in integers: 8·|x − y| ≤ high.
    return distance(x, y) * BigInt(Math.round(1 / FEE_BAND)) <= high;
  },
  // The higher fee: one both operators' quotes justify, and the one more likely to land.
  pick: (a, b) => ((quantityOf(a) ?? 0n) >= (quantityOf(b) ?? 0n) ? a : b),
};

/** Exact agreement, except that a Solana context slot may drift within the allowance (the value may not). */
const CONTEXT_RULE: AgreementRule = {
  name: 'context-slot',
  agree: (a, b, allowance) => {
    const x = contextSlotOf(a);
    const y = contextSlotOf(b);
    if (x === undefined || y === undefined) return x === y && canonicalJson(a) === canonicalJson(b);
    return distance(x, y) <= BigInt(allowance.slot) && canonicalJson((a as { value?: unknown }).value) === canonicalJson((b as { value?: unknown }).value);
  },
  // The later context: the freshest view both operators' values hold at.
  pick: (a, b) => ((contextSlotOf(a) ?? 0n) >= (contextSlotOf(b) ?? 0n) ? a : b),
};

/** The drift table: the methods whose honest answers may differ, by rule. */
export const AGREEMENT_TABLE: ReadonlyMap<string, AgreementRule> = new Map([
  ...['eth_blockNumber'].map((method) => [method, headRule('block')] as const),
  ...['getSlot', 'getBlockHeight'].map((method) => [method, headRule('slot')] as const),
  ...['eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee'].map((method) => [method, FEE_BAND_RULE] as const),
]);

/** The rule two answers of `method` are compared by. */
export function agreementRuleOf(method: string): AgreementRule {
  return AGREEMENT_TABLE.get(method) ?? CONTEXT_RULE;
}

/** Answers grouped by agreement with each class's first answer: class `a` is the first answer's, `b` the first that disagrees with it, and so on. */
export interface AnswerClass<T> {
  readonly label: string;
  readonly members: T[];
  /** What the caller gets when this class wins: the pick among its members. */
  value: unknown;
}

/** Groups `answers` into classes of agreeing answers, in the order their first member came. */
export function classifyAnswers<T extends { readonly value: unknown }>(answers: readonly T[], rule: AgreementRule, allowance: DriftAllowance): AnswerClass<T>[] {
  const classes: AnswerClass<T>[] = [];
  for (const answer of answers) {
    const joined = classes.find((known) => rule.agree(known.members[0]!.value, answer.value, allowance));
    if (joined === undefined) {
      classes.push({ label: String.fromCharCode(97 + classes.length), members: [answer], value: answer.value });
      continue;
    }
    joined.members.push(answer);
    joined.value = rule.pick(joined.value, answer.value);
  }
  return classes;
}
