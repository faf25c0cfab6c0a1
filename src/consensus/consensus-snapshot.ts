/** Consensus reads since the pool started (`snapshot().consensus`, exported as `consensus_*`). */
export interface ConsensusSnapshot {
  /** Reads that asked for consensus. */
  readonly calls: number;
  /** Calls whose first answers all agreed. */
  readonly agreed: number;
  /** Calls with an answer that disagreed (resolved by one more operator, or failed). */
  readonly disagreed: number;
  /** Calls that failed: `CONSENSUS_FAILED`, or no operator answered. */
  readonly failed: number;
  /** One more operator asked after a disagreement (each drawn from the retry budget). */
  readonly tieBreaks: number;
  /** Outlier answers struck (one integrity strike on the endpoint each). */
  readonly strikes: number;
}

export type ConsensusCounters = { -readonly [K in keyof ConsensusSnapshot]: number };

export function createConsensusCounters(): ConsensusCounters {
  return { calls: 0, agreed: 0, disagreed: 0, failed: 0, tieBreaks: 0, strikes: 0 };
}
