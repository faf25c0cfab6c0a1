/** What a consensus read needs (docs/reads.md "Consensus reads"): per call, or per method in the pool's `methods` table. */
export interface ConsensusOptions {
  /** How many distinct operators must give agreeing answers: 2 or 3. */
  readonly operators: 2 | 3;
}
