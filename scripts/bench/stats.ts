/** Summary statistics of repeated measurements. Pure: no clocks, no I/O. */

export interface Spread {
  median: number
  min: number
  max: number
  /** Nearest-rank 95th percentile; with fewer than 20 samples it is the max. */
  p95: number
  samples: number[]
}

/** Nearest-rank percentile (0 < p ≤ 100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError('percentile of an empty list')
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty list')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export function spreadOf(samples: readonly number[]): Spread {
  return {
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    p95: percentile(samples, 95),
    samples: [...samples],
  }
}
