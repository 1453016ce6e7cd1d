import fc from 'fast-check'

/**
 * Setup file of the mutation run (vitest.mutation.config.ts): every property
 * test draws the same inputs on every run and every machine. A mutant's
 * verdict must not depend on a random draw: one killed only by a lucky input
 * would survive the next run, and the gate would pass or fail by chance. The
 * ordinary test runs keep random seeds, so they keep exploring new inputs;
 * fast-check prints the seed of any failure to replay it.
 */
export const MUTATION_PROPERTY_SEED = 20_261_201

fc.configureGlobal({ seed: MUTATION_PROPERTY_SEED })
