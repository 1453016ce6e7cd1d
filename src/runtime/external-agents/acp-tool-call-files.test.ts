import { describe, expect, it } from 'vitest'
import type { AcpToolCall } from './acp-messages.ts'
import { actionOf } from './test-support/acp-action.ts'

describe('ACP tool calls as file changes', () => {
  /** A call of `kind` whose content is `content`, as any ACP agent sends it. */
  const callWith = (kind: string, content: AcpToolCall['content']): AcpToolCall => ({
    toolCallId: 't',
    kind,
    content,
  })
  /** A change as a diff alone reads: no move, no unified diff. */
  const fromDiff = (path: string, change: string, oldText: string | null, newText: string) => ({
    path,
    change,
    movePath: null,
    diff: null,
    oldText,
    newText,
  })

  it('reads diffs as file changes', () => {
    const call = callWith('edit', [
      { type: 'diff', path: '/w/new.txt', newText: 'a' },
      { type: 'diff', path: '/w/old.txt', oldText: 'x', newText: 'y' },
      { type: 'content', content: { type: 'text', text: 'ignored' } },
    ])
    expect(actionOf(call, '/w')).toEqual({
      kind: 'file-changes',
      changes: [
        fromDiff('/w/new.txt', 'add', null, 'a'),
        fromDiff('/w/old.txt', 'update', 'x', 'y'),
      ],
    })
  })

  it('reads a diff of a delete call as a deletion, and skips a diff without a path', () => {
    const call = callWith('delete', [
      { type: 'diff', path: '', newText: '' },
      { type: 'diff', path: '/w/gone.txt', oldText: 'x', newText: '' },
    ])
    expect(actionOf(call, '/w')).toEqual({
      kind: 'file-changes',
      changes: [fromDiff('/w/gone.txt', 'delete', 'x', '')],
    })
  })

  /** A codex-acp patch as it sends one: each diff and location names the
   *  file after the change (a moved file by where it moves to); the raw
   *  input's `changes` name each file before it, with what happens to it. */
  const codexAcpPatch = (
    diffs: Array<{ path: string; oldText: string | null; newText: string }>,
    changes: Record<string, Record<string, unknown>>,
    extra: Record<string, unknown> = {},
  ) => ({
    toolCallId: 't',
    kind: 'edit',
    title: 'Edit',
    locations: diffs.map(({ path }) => ({ path })),
    content: diffs.map((diff) => ({ type: 'diff', ...diff })),
    // As codex-acp 0.x sends it: the patch's ids and start time beside it.
    rawInput: {
      call_id: 'c',
      turn_id: '01a23d74-bd3b-7a70-b269-e6c4068e120a',
      started_at_ms: 1796327391124,
      changes,
      reason: null,
      grant_root: null,
      ...extra,
    },
  })

  it('reads a codex-acp move as a move from its source, which only the raw input names', () => {
    const call = codexAcpPatch([{ path: '/w/docs/ok.txt', oldText: 'original', newText: 'evil' }], {
      '/w/.git/hooks/post-merge': {
        type: 'update',
        unified_diff: '@@ -1 +1 @@\n-original\n+evil\n',
        move_path: '/w/docs/ok.txt',
      },
    })
    expect(actionOf(call, '/w')).toEqual({
      kind: 'file-changes',
      changes: [
        {
          path: '/w/.git/hooks/post-merge',
          change: 'update',
          movePath: '/w/docs/ok.txt',
          diff: null,
          oldText: 'original',
          newText: 'evil',
        },
      ],
    })
  })

  it('reads a codex-acp delete (an edit that empties the file) as a delete', () => {
    const call = codexAcpPatch([{ path: '/w/docs/ok.txt', oldText: 'original\n', newText: '' }], {
      '/w/docs/ok.txt': { type: 'delete', content: 'original\n' },
    })
    expect(actionOf(call, '/w')).toMatchObject({
      kind: 'file-changes',
      changes: [
        { path: '/w/docs/ok.txt', change: 'delete', movePath: null, oldText: 'original\n' },
      ],
    })
  })

  it('reads a codex-acp in-place edit and an added file as they are', () => {
    const call = codexAcpPatch(
      [
        { path: '/w/a.txt', oldText: 'x', newText: 'y' },
        { path: '/w/new.txt', oldText: null, newText: 'n' },
      ],
      {
        '/w/a.txt': { type: 'update', unified_diff: '-x\n+y\n', move_path: null },
        '/w/new.txt': { type: 'add', content: 'n' },
      },
    )
    expect(actionOf(call, '/w')).toMatchObject({
      kind: 'file-changes',
      changes: [
        { path: '/w/a.txt', change: 'update', movePath: null },
        { path: '/w/new.txt', change: 'add', movePath: null },
      ],
    })
  })

  it('keeps a claude-agent-acp edit, whose raw input names only its file, as a file change', () => {
    const call = {
      toolCallId: 't',
      kind: 'edit',
      title: 'Edit a.txt',
      locations: [{ path: '/w/a.txt', line: 3 }],
      content: [{ type: 'diff', path: '/w/a.txt', oldText: 'x', newText: 'y' }],
      rawInput: { file_path: '/w/a.txt', old_string: 'x', new_string: 'y', replace_all: false },
    }
    expect(actionOf(call, '/w')).toMatchObject({
      kind: 'file-changes',
      changes: [{ path: '/w/a.txt', change: 'update' }],
    })
  })

  // claude-agent-acp's Edit with `replace_all: true` changes every
  // occurrence while its diff shows one: not read as the diff's change.
  it('shows an edit whose raw input sets a flag or a number as the tool call it is', () => {
    for (const flag of [{ replace_all: true }, { occurrences: 3 }]) {
      const call = {
        toolCallId: 't',
        kind: 'edit',
        title: 'Edit a.txt',
        locations: [{ path: '/w/a.txt' }],
        content: [{ type: 'diff', path: '/w/a.txt', oldText: 'x', newText: 'y' }],
        rawInput: { file_path: '/w/a.txt', old_string: 'x', new_string: 'y', ...flag },
      }
      expect(actionOf(call, '/w')).toMatchObject({ kind: 'tool', toolKind: 'edit' })
    }
  })

  it('shows a call with diffs that names any other place as a tool call naming every place', () => {
    const diff = { type: 'diff', path: '/w/docs/ok.txt', oldText: 'original', newText: 'original' }
    const notChanges = [
      // A generic move whose other end only its locations and raw input name.
      {
        kind: 'move',
        locations: [{ path: '/w/docs/ok.txt' }, { path: '/w/.git/hooks/post-merge' }],
        rawInput: { source: '/w/docs/ok.txt', destination: '/w/.git/hooks/post-merge' },
      },
      // A location alone, relative.
      { kind: 'edit', locations: [{ path: '/w/.git/hooks/post-merge' }] },
      // A raw input field Assent cannot tell from a place.
      { kind: 'edit', rawInput: { file_path: '/w/docs/ok.txt', target: 'elsewhere.txt' } },
      // A raw input nested deeper than Assent reads.
      { kind: 'edit', rawInput: JSON.parse(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`) },
      // A move whose source and destination nothing says.
      { kind: 'move' },
    ]
    for (const fields of notChanges) {
      const action = actionOf({ toolCallId: 't', title: 'Move', content: [diff], ...fields }, '/w')
      expect(action).toMatchObject({ kind: 'tool', toolKind: fields.kind, title: 'Move' })
      expect(action).toHaveProperty('input', fields.rawInput ?? null)
      const locations = (action as { locations: string[] }).locations
      expect(locations).toContain('/w/docs/ok.txt')
      for (const { path } of fields.locations ?? [])
        expect(locations).toContain(`/w/${path.replace(/^\/w\//, '')}`)
    }
  })

  it('shows a codex-acp patch that names a file no diff shows, or a grant root, as a tool call', () => {
    const diffs = [{ path: '/w/docs/ok.txt', oldText: 'original', newText: 'evil' }]
    const unshown = codexAcpPatch(diffs, {
      '/w/docs/ok.txt': { type: 'update', move_path: null },
      '/w/.env': { type: 'delete', content: 'SECRET=1' },
    })
    const grantRoot = codexAcpPatch(
      diffs,
      { '/w/docs/ok.txt': { type: 'update', move_path: null } },
      { grant_root: '/w' },
    )
    // Two files moved onto one: the one no diff shows is named all the same.
    const twoOntoOne = codexAcpPatch(diffs, {
      '/w/a.txt': { type: 'update', move_path: '/w/docs/ok.txt' },
      '/w/.git/config': { type: 'update', move_path: '/w/docs/ok.txt' },
    })
    for (const call of [unshown, grantRoot, twoOntoOne]) {
      expect(actionOf(call, '/w')).toMatchObject({ kind: 'tool', toolKind: 'edit' })
    }
    expect(actionOf(unshown, '/w')).toMatchObject({ input: unshown.rawInput })
  })

  it('lists every place a tool call names, its patch’s files included, in the order named', () => {
    const diffs = [{ path: '/w/docs/ok.txt', oldText: 'original', newText: 'evil' }]
    const placesOf = (call: AcpToolCall) =>
      (actionOf(call, '/w') as { kind: string; locations?: string[] }).locations
    // A file the patch deletes that no diff shows, shown all the same.
    expect(
      placesOf(
        codexAcpPatch(diffs, {
          '/w/docs/ok.txt': { type: 'update', move_path: null },
          '/w/.env': { type: 'delete', content: 'SECRET=1' },
        }),
      ),
    ).toEqual(['/w/docs/ok.txt', '/w/.env'])
    // Two files moved onto one: the diff is read as the first one's move.
    expect(
      placesOf(
        codexAcpPatch(diffs, {
          '/w/a.txt': { type: 'update', move_path: '/w/docs/ok.txt' },
          '/w/.git/config': { type: 'update', move_path: '/w/docs/ok.txt' },
        }),
      ),
    ).toEqual(['/w/docs/ok.txt', '/w/a.txt', '/w/.git/config'])
    // No locations: the move's both ends and the in-place edit come from
    // the diffs and the patch alone (a grant root keeps it a tool call).
    const unlocated = codexAcpPatch(
      [
        { path: '/w/b.txt', oldText: 'x', newText: 'y' },
        { path: '/w/c.txt', oldText: 'x', newText: 'y' },
      ],
      {
        '/w/a.txt': { type: 'update', move_path: '/w/b.txt' },
        '/w/c.txt': { type: 'update' },
      },
      { grant_root: '/w' },
    )
    expect(placesOf({ ...unlocated, locations: [] })).toEqual(['/w/a.txt', '/w/b.txt', '/w/c.txt'])
  })

  it('reads a move call as file changes when its patch moves a file, with its other edits', () => {
    const call = codexAcpPatch(
      [
        { path: '/w/b.txt', oldText: 'x', newText: 'x' },
        { path: '/w/c.txt', oldText: 'x', newText: 'y' },
      ],
      {
        '/w/a.txt': { type: 'update', move_path: '/w/b.txt' },
        '/w/c.txt': { type: 'update', move_path: null },
      },
    )
    expect(actionOf({ ...call, kind: 'move' }, '/w')).toMatchObject({
      kind: 'file-changes',
      changes: [
        { path: '/w/a.txt', change: 'update', movePath: '/w/b.txt' },
        { path: '/w/c.txt', change: 'update', movePath: null },
      ],
    })
  })

  it('never reads a patch entry’s target as a move unless it is an update to another file', () => {
    // An update "moved" onto its own path edits it in place.
    const inPlace = codexAcpPatch([{ path: '/w/a.txt', oldText: 'x', newText: 'y' }], {
      '/w/a.txt': { type: 'update', move_path: '/w/a.txt' },
    })
    expect(actionOf(inPlace, '/w')).toMatchObject({
      kind: 'file-changes',
      changes: [{ path: '/w/a.txt', change: 'update', movePath: null }],
    })
    // A delete or an add with a target names a place no change has: shown
    // as a tool call naming both, whichever end its diff names.
    for (const type of ['delete', 'add']) {
      for (const diffPath of ['/w/a.txt', '/w/.git/hooks/post-merge']) {
        const call = codexAcpPatch([{ path: diffPath, oldText: 'x', newText: '' }], {
          '/w/a.txt': { type, move_path: '/w/.git/hooks/post-merge' },
        })
        const action = actionOf(call, '/w')
        expect(action).toMatchObject({ kind: 'tool', toolKind: 'edit' })
        expect(new Set((action as { locations: string[] }).locations)).toEqual(
          new Set(['/w/a.txt', '/w/.git/hooks/post-merge']),
        )
      }
    }
    // An entry of a kind codex-acp does not send: the raw input is not its
    // patch, so the call is read as any other call's, its strings as places.
    const unknownType = codexAcpPatch([{ path: '/w/a.txt', oldText: 'x', newText: 'y' }], {
      '/w/a.txt': { type: 'rename', move_path: null },
    })
    expect(actionOf(unknownType, '/w')).toMatchObject({ kind: 'tool', locations: ['/w/a.txt'] })
  })

  it('reads every string of a raw input as a place but the fields that hold text', () => {
    const editOf = (rawInput: unknown) => ({
      toolCallId: 't',
      kind: 'edit',
      locations: [{ path: '/w/a.txt' }],
      content: [{ type: 'diff', path: '/w/a.txt', oldText: 'x', newText: 'y' }],
      rawInput,
    })
    const texts = [
      'content',
      'unified_diff',
      'call_id',
      'turn_id',
      'reason',
      'old_string',
      'new_string',
      'description',
    ]
    for (const field of texts) {
      expect(actionOf(editOf({ file_path: '/w/a.txt', [field]: 'fix it' }), '/w')).toMatchObject({
        kind: 'file-changes',
      })
      expect(actionOf(editOf({ file_path: '/w/a.txt', other: 'fix it' }), '/w')).toMatchObject({
        kind: 'tool',
      })
    }
    // `changes` is skipped only where it is codex-acp's patch: at the top of
    // a raw input that is one.
    const patch = codexAcpPatch([{ path: '/w/a.txt', oldText: 'x', newText: 'y' }], {
      '/w/a.txt': { type: 'update', move_path: null },
    })
    expect(actionOf(patch, '/w')).toMatchObject({ kind: 'file-changes' })
    const nested = {
      ...patch,
      rawInput: { ...patch.rawInput, meta: { changes: '/w/.git/config' } },
    }
    expect(actionOf(nested, '/w')).toMatchObject({ kind: 'tool' })
    expect(
      actionOf(editOf({ file_path: '/w/a.txt', changes: '/w/.git/config' }), '/w'),
    ).toMatchObject({ kind: 'tool' })
    // Arrays are read item by item, to the same depth as objects.
    const arraysOf = (depth: number, items: unknown[]): unknown =>
      depth === 1 ? items : [arraysOf(depth - 1, items)]
    expect(
      actionOf(editOf({ file_path: '/w/a.txt', all: arraysOf(15, ['/w/a.txt']) }), '/w'),
    ).toMatchObject({ kind: 'file-changes' })
    expect(
      actionOf(editOf({ file_path: '/w/a.txt', all: arraysOf(16, ['/w/a.txt']) }), '/w'),
    ).toMatchObject({ kind: 'tool' })
    expect(
      actionOf(editOf({ file_path: '/w/a.txt', all: ['/w/a.txt', '/w/.git/config'] }), '/w'),
    ).toMatchObject({ kind: 'tool' })
    // A key that is not a field name is a place too (a record keyed by file).
    expect(
      actionOf(editOf({ edits: { '/w/a.txt': { old_string: 'x', new_string: 'y' } } }), '/w'),
    ).toMatchObject({ kind: 'file-changes' })
    expect(actionOf(editOf({ edits: { 'a.txt': { new_string: 'y' } } }), '/w')).toMatchObject({
      kind: 'file-changes',
    })
    for (const key of ['/w/.git/config', '.git', '0', 'a b']) {
      expect(actionOf(editOf({ edits: { [key]: { new_string: 'y' } } }), '/w')).toMatchObject({
        kind: 'tool',
      })
    }
  })
})
