import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { McpConfigSchema } from './mcp-config.ts'

const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8')

describe('docs/mcp.md', () => {
  it('has mcp.json examples that the real schema accepts', () => {
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => JSON.parse(match[1] ?? '') as Record<string, unknown>)
      // Assent's own mcp.json lists its servers; VS Code's config (a map
      // under the same key) is another program's, held by
      // tests/mcp-client-configs.test.ts.
      .filter((value) => Array.isArray(value.servers))
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    for (const block of blocks) {
      const parsed = McpConfigSchema.safeParse(block)
      expect(parsed.error?.issues ?? []).toEqual([])
    }
  })
})
