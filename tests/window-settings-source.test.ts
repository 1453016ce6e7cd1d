import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The window settings must stay written inline in `new BrowserWindow({...})`
// (static audits such as electronegativity read them from the source), so this
// reads the source with the TypeScript compiler and checks the literal itself:
// a setting moved into a variable, spread in, or changed fails here.

const ROOT = resolve(import.meta.dirname, '..')
const PROTECTED = 'src/main/electron/protected-window.ts'
/** Where the protected window's page guards are set, once it is made. */
const PROTECTED_GUARDS = 'src/main/electron/protected-window-handle.ts'
const WORKBENCH = 'src/main/electron/workbench-window.ts'

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(
    path,
    readFileSync(resolve(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  )
}

function findAll<T extends ts.Node>(root: ts.Node, test: (node: ts.Node) => node is T): T[] {
  const found: T[] = []
  const visit = (node: ts.Node) => {
    if (test(node)) found.push(node)
    ts.forEachChild(node, visit)
  }
  visit(root)
  return found
}

function propertyName(property: ts.ObjectLiteralElementLike): string | undefined {
  return property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
    ? property.name.text
    : undefined
}

/** `new BrowserWindow({ …, webPreferences: { … } })`: each webPreferences
 *  entry as its source text. Throws unless it is one inline literal. */
function inlineWebPreferences(source: ts.SourceFile): Record<string, string> {
  const constructions = findAll(
    source,
    (node): node is ts.NewExpression =>
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'BrowserWindow',
  )
  expect(constructions).toHaveLength(1)
  const [options] = constructions[0]?.arguments ?? []
  if (!options || !ts.isObjectLiteralExpression(options)) {
    throw new Error('BrowserWindow options are not an inline object literal')
  }
  const webPreferences = options.properties.filter(
    (property) => propertyName(property) === 'webPreferences',
  )
  expect(webPreferences).toHaveLength(1)
  const [assignment] = webPreferences
  if (
    !assignment ||
    !ts.isPropertyAssignment(assignment) ||
    !ts.isObjectLiteralExpression(assignment.initializer)
  ) {
    throw new Error('webPreferences is not an inline object literal')
  }
  const entries: Record<string, string> = {}
  for (const property of assignment.initializer.properties) {
    // A spread or shorthand would hide the value from a reader of the source.
    if (!ts.isPropertyAssignment(property)) {
      throw new Error(`webPreferences has a ${ts.SyntaxKind[property.kind]}`)
    }
    const name = propertyName(property)
    if (name === undefined) throw new Error('webPreferences has a computed key')
    expect(entries, `${name} is set twice`).not.toHaveProperty(name)
    entries[name] = property.initializer.getText(source)
  }
  return entries
}

/** The handler registered with `.on(event, handler)`, one per event. */
function handlersFor(source: ts.SourceFile, event: string): ts.Expression[] {
  return findAll(
    source,
    (node): node is ts.CallExpression =>
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'on' &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0]) &&
      node.arguments[0].text === event,
  ).map((call) => call.arguments[1] as ts.Expression)
}

/** True when the handler's first act is `<its first parameter>.preventDefault()`. */
function preventsFirst(handler: ts.Expression | undefined): boolean {
  if (!handler || !ts.isArrowFunction(handler)) return false
  const parameter = handler.parameters[0]?.name
  if (!parameter || !ts.isIdentifier(parameter)) return false
  const first = ts.isBlock(handler.body)
    ? handler.body.statements[0]
    : ts.factory.createExpressionStatement(handler.body)
  if (!first || !ts.isExpressionStatement(first)) return false
  const call = first.expression
  return (
    ts.isCallExpression(call) &&
    ts.isPropertyAccessExpression(call.expression) &&
    call.expression.name.text === 'preventDefault' &&
    ts.isIdentifier(call.expression.expression) &&
    call.expression.expression.text === parameter.text
  )
}

/** The calls of `name(…)` or `<anything>.name(…)`. */
function callsOf(source: ts.SourceFile, name: string): ts.CallExpression[] {
  return findAll(
    source,
    (node): node is ts.CallExpression =>
      ts.isCallExpression(node) &&
      ((ts.isIdentifier(node.expression) && node.expression.text === name) ||
        (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === name)),
  )
}

/** The arguments of every call of `name`, as source text. */
function argumentsOf(source: ts.SourceFile, name: string): string[][] {
  return callsOf(source, name).map((call) => call.arguments.map((arg) => arg.getText(source)))
}

/** Every value `setWindowOpenHandler`'s handler can return, as source text. */
function windowOpenAnswers(source: ts.SourceFile): string[] {
  const calls = callsOf(source, 'setWindowOpenHandler')
  expect(calls).toHaveLength(1)
  const handler = calls[0]?.arguments[0]
  if (!handler || !ts.isArrowFunction(handler)) throw new Error('no inline window open handler')
  const text = (expression: ts.Expression | undefined): string => {
    if (!expression) return ''
    return ts.isParenthesizedExpression(expression)
      ? text(expression.expression)
      : expression.getText(source)
  }
  if (!ts.isBlock(handler.body)) return [text(handler.body)]
  return findAll(handler.body, ts.isReturnStatement).map((statement) => text(statement.expression))
}

const HARDENED = {
  sandbox: 'true',
  contextIsolation: 'true',
  nodeIntegration: 'false',
  nodeIntegrationInSubFrames: 'false',
  nodeIntegrationInWorker: 'false',
  webviewTag: 'false',
  webSecurity: 'true',
  allowRunningInsecureContent: 'false',
  experimentalFeatures: 'false',
  devTools: 'developmentBuild',
  spellcheck: 'false',
  safeDialogs: 'true',
  disableBlinkFeatures: "'Auxclick'",
  navigateOnDragDrop: 'false',
}

describe('window settings in the source, as static audits read them', () => {
  it('writes the protected window webPreferences inline, exactly as docs/architecture.md §3', () => {
    expect(inlineWebPreferences(parse(PROTECTED))).toEqual({
      session: 'consentSession',
      ...HARDENED,
      preload: "builtPath(appRoot, 'protectedPreload')",
    })
  })

  it('writes the workbench window webPreferences inline with the same hardening', () => {
    expect(inlineWebPreferences(parse(WORKBENCH))).toEqual({
      session: 'workbenchSession',
      ...HARDENED,
      preload: "builtPath(appRoot, 'workbenchPreload')",
    })
  })

  it('gives each protected window a session named at random, never persist:', () => {
    const source = parse(PROTECTED)
    const calls = findAll(
      source,
      (node): node is ts.CallExpression =>
        ts.isCallExpression(node) && node.expression.getText(source) === 'session.fromPartition',
    )
    expect(calls).toHaveLength(1)
    const name = calls[0]?.arguments[0]
    if (!name || !ts.isTemplateExpression(name))
      throw new Error('the partition name is not a template')
    expect(name.head.text).toBe('assent-consent-')
    expect(name.templateSpans.map((span) => span.expression.getText(source))).toEqual([
      'randomUUID()',
    ])
    expect(name.templateSpans.at(-1)?.literal.text).toBe('')
  })

  // Each window: the file that makes it (its session) and the file that
  // guards its web contents (the same file for the workbench).
  const windows = [
    { path: PROTECTED, guards: PROTECTED_GUARDS, session: 'consentSession' },
    { path: WORKBENCH, guards: WORKBENCH, session: 'workbenchSession' },
  ]
  for (const { path, guards, session } of windows) {
    it(`prevents navigation, redirects, frame navigation and webviews first thing (${guards})`, () => {
      const source = parse(guards)
      for (const event of [
        'will-navigate',
        'will-redirect',
        'will-frame-navigate',
        'will-attach-webview',
        'content-bounds-updated',
      ]) {
        const handlers = handlersFor(source, event)
        expect(handlers, event).toHaveLength(1)
        expect(preventsFirst(handlers[0]), event).toBe(true)
      }
    })

    it(`grants its session nothing through grantNothing (${path})`, () => {
      expect(argumentsOf(parse(path), 'grantNothing')).toEqual([[session]])
    })

    it(`sets the WebRTC IP handling policy on its webContents (${guards})`, () => {
      expect(argumentsOf(parse(guards), 'setWebRTCIPHandlingPolicy')).toEqual([
        ['WEBRTC_IP_HANDLING_POLICY'],
      ])
    })

    it(`answers every window.open with deny (${guards})`, () => {
      const answers = windowOpenAnswers(parse(guards))
      expect(answers.length).toBeGreaterThan(0)
      for (const answer of answers) expect(answer).toBe("{ action: 'deny' }")
    })
  }
})

/** Every .ts file under `dir` that is not a test. */
function productFiles(dir: string): string[] {
  return readdirSync(resolve(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(resolve(ROOT, path)).isDirectory()) return productFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

describe("main's source, as a reviewer reads it", () => {
  const files = productFiles('src/main')

  it('reads the files it vouches for', () => {
    expect(files).toEqual(
      expect.arrayContaining([PROTECTED, PROTECTED_GUARDS, WORKBENCH, 'src/main/index.ts']),
    )
  })

  /** Where any of `names` appears as an identifier in main's source. */
  const identifiers = (names: readonly string[]) =>
    files.flatMap((path) => {
      const source = parse(path)
      return findAll(
        source,
        (node): node is ts.Identifier => ts.isIdentifier(node) && names.includes(node.text),
      ).map((node) => `${path}: ${node.parent.getText(source)}`)
    })

  /** Where Electron's `shell` module is reached: imported from 'electron'
   *  by name, or read off an `electron` namespace. (A `shell` field of a
   *  command's arguments is no such thing.) */
  const electronShellUses = () =>
    files.flatMap((path) => {
      const source = parse(path)
      const imported = findAll(
        source,
        (node): node is ts.ImportSpecifier =>
          ts.isImportSpecifier(node) &&
          (node.propertyName ?? node.name).text === 'shell' &&
          ts.isStringLiteral(node.parent.parent.parent.moduleSpecifier) &&
          node.parent.parent.parent.moduleSpecifier.text === 'electron',
      )
      const read = findAll(
        source,
        (node): node is ts.PropertyAccessExpression =>
          ts.isPropertyAccessExpression(node) &&
          node.name.text === 'shell' &&
          ts.isIdentifier(node.expression) &&
          node.expression.text === 'electron',
      )
      return [...imported, ...read].map((node) => `${path}: ${node.getText(source)}`)
    })

  it('never opens anything outside the app: no openExternal, no shell from Electron', () => {
    expect(identifiers(['openExternal'])).toEqual([])
    expect(electronShellUses()).toEqual([])
  })

  it('puts nothing on globalThis (the smoke attaches through its own port)', () => {
    expect(identifiers(['globalThis', 'global'])).toEqual([])
  })

  it('never decides anything on app.isPackaged, which follows the executable name', () => {
    expect(identifiers(['isPackaged'])).toEqual([])
  })

  it('refuses every download in every session it makes (grantNothing)', () => {
    const source = parse('src/main/electron/web-contents-guard.ts')
    const handlers = handlersFor(source, 'will-download')
    expect(handlers).toHaveLength(1)
    expect(preventsFirst(handlers[0])).toBe(true)
  })
})
