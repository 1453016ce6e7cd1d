import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { McpConfigSchema } from './mcp-config.ts'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

/** The README's MCP section, up to the next level-2 heading. */
function mcpSection(): string {
  const start = readme.indexOf('## MCP tools')
  const end = readme.indexOf('\n## ', start + 1)
  return readme.slice(start, end === -1 ? undefined : end)
}

describe('the README MCP section', () => {
  it('has mcp.json examples that the real schema accepts', () => {
    const blocks = [...mcpSection().matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => JSON.parse(match[1] ?? '') as Record<string, unknown>)
      .filter((value) => 'servers' in value)
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    for (const block of blocks) {
      const parsed = McpConfigSchema.safeParse(block)
      expect(parsed.error?.issues ?? []).toEqual([])
    }
  })
})
