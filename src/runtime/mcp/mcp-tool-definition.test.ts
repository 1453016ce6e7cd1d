import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toolListHash, type McpToolDefinition } from './mcp-tool-definition.ts'

const toolArbitrary: fc.Arbitrary<McpToolDefinition> = fc.record(
  {
    name: fc.stringMatching(/^[a-z][a-z_]{0,11}$/),
    title: fc.string({ maxLength: 12 }),
    description: fc.string({ maxLength: 40 }),
    inputSchema: fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(
        fc.stringMatching(/^[a-z]{1,6}$/),
        fc.record({ type: fc.constantFrom('string', 'number', 'boolean') }),
        { maxKeys: 3 },
      ),
    }),
    annotations: fc.record({ readOnlyHint: fc.boolean(), destructiveHint: fc.boolean() }),
  },
  { requiredKeys: ['name', 'inputSchema'] },
)

/** Lists of tools with distinct names, as a server lists them. */
const listArbitrary = fc.uniqueArray(toolArbitrary, {
  minLength: 1,
  maxLength: 6,
  selector: (tool) => tool.name,
})

/** One change to one tool of the list: every field a definition has. */
function changed(tool: McpToolDefinition, field: number): McpToolDefinition {
  switch (field) {
    case 0:
      return { ...tool, description: `${tool.description ?? ''} and more` }
    case 1:
      return { ...tool, title: `${tool.title ?? ''}!` }
    case 2:
      return { ...tool, inputSchema: { ...tool.inputSchema, required: ['x'] } }
    case 3:
      return { ...tool, annotations: { ...tool.annotations, openWorldHint: true } }
    default:
      return { ...tool, name: `${tool.name}_2` }
  }
}

describe('the hash a server-wide grant is bound to', () => {
  it('does not depend on the order the server lists its tools in', () => {
    fc.assert(
      fc.property(listArbitrary, (tools) => {
        expect(toolListHash([...tools].reverse())).toBe(toolListHash(tools))
      }),
    )
  })

  it('changes when any field of any tool changes, or a tool is added or removed', () => {
    let checked = 0
    fc.assert(
      fc.property(
        listArbitrary,
        fc.nat(),
        fc.integer({ min: 0, max: 4 }),
        toolArbitrary,
        (tools, at, field, extra) => {
          const index = at % tools.length
          const original = toolListHash(tools)
          const edited = tools.map((tool, i) => (i === index ? changed(tool, field) : tool))
          // A renamed tool that collides with another is not a list a server sends.
          fc.pre(new Set(edited.map((tool) => tool.name)).size === edited.length)
          checked += 1
          expect(toolListHash(edited)).not.toBe(original)
          expect(toolListHash(tools.filter((_, i) => i !== index))).not.toBe(original)
          if (!tools.some((tool) => tool.name === extra.name)) {
            expect(toolListHash([...tools, extra])).not.toBe(original)
          }
        },
      ),
    )
    expect(checked).toBeGreaterThan(50)
  })
})
