import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  codexOwnAllowances,
  configAllowances,
  refuseCodexOwnAllowances,
} from './codex-own-allowances.ts'
import { GATEWAY_ENTRY, type GatewayCheck } from './assent-gateway-launch.ts'

let root: string
let home: string
let workspace: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-codex-own-')))
  home = join(root, 'home')
  workspace = join(root, 'projects', 'app', 'workspace')
  mkdirSync(home, { recursive: true })
  mkdirSync(workspace, { recursive: true })
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** The machine's Codex folder, `/etc/codex` outside these tests. */
const machine = () => join(root, 'etc', 'codex')

function write(file: string, text = ''): string {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}

describe("Codex's own files that would let it act unasked", () => {
  // Each row: what is on disk, and what is found (paths under `root`).
  const table: Array<[string, () => string[], Record<string, string>?]> = [
    ['a rules file in ~/.codex', () => [write(join(home, '.codex', 'rules', 'default.rules'))]],
    [
      'a rules file in CODEX_HOME, not ~/.codex',
      () => {
        write(join(home, '.codex', 'config.toml'), 'model = "x"\n')
        return [write(join(root, 'codex-home', 'rules', 'mine.rules'))]
      },
      { CODEX_HOME: 'CODEX_HOME' },
    ],
    ['rules the workspace ships', () => [write(join(workspace, '.codex', 'rules', 'x.rules'))]],
    [
      'rules in a folder above it, inside the repository it is in',
      () => {
        mkdirSync(join(root, 'projects', '.git'))
        return [write(join(root, 'projects', '.codex', 'rules', 'y.rules'))]
      },
    ],
    [
      'nothing: rules above the repository the workspace is in',
      () => {
        mkdirSync(join(root, 'projects', 'app', '.git'))
        write(join(root, 'projects', '.codex', 'rules', 'y.rules'))
        return []
      },
    ],
    [
      'nothing: rules above a workspace that is in no repository',
      () => {
        write(join(root, 'projects', '.codex', 'rules', 'y.rules'))
        return []
      },
    ],
    [
      'rules above the repository, where the home config names other root markers',
      () => {
        mkdirSync(join(root, 'projects', 'app', '.git'))
        write(join(home, '.codex', 'config.toml'), 'project_root_markers = ["x"]\n')
        return [write(join(root, 'projects', '.codex', 'rules', 'y.rules'))]
      },
    ],
    [
      "rules above a workspace in no repository, where the machine's config names markers",
      () => {
        write(join(machine(), 'managed_config.toml'), 'project_root_markers = []\n')
        return [write(join(root, '.codex', 'rules', 'z.rules'))]
      },
    ],
    ['hooks.json in ~/.codex', () => [write(join(home, '.codex', 'hooks.json'), '{}')]],
    [
      'hooks.json the workspace ships',
      () => [write(join(workspace, '.codex', 'hooks.json'), '{}')],
    ],
    [
      'a [hooks] table in config.toml',
      () => [
        `${write(join(home, '.codex', 'config.toml'), 'model = "x"\n\n[hooks]\nstop = []\n')} (its hooks)`,
      ],
    ],
    [
      'an array of hooks tables in config.toml',
      () => [
        `${write(join(workspace, '.codex', 'config.toml'), '[[hooks.session_start]]\n')} (its hooks)`,
      ],
    ],
    [
      'a notify command in ~/.codex/config.toml',
      () => [
        `${write(join(home, '.codex', 'config.toml'), 'notify = ["notify-send"]\n')} (its notify command)`,
      ],
    ],
    [
      'a plugin in the config.toml the workspace ships',
      () => [
        `${write(join(workspace, '.codex', 'config.toml'), '[plugins."x@y"]\n')} (plugin "x@y")`,
      ],
    ],
    ["rules in the machine's folder", () => [write(join(machine(), 'rules', 'default.rules'))]],
    ["hooks.json in the machine's folder", () => [write(join(machine(), 'hooks.json'), '{}')]],
    [
      "a notify command in the machine's config.toml",
      () => [`${write(join(machine(), 'config.toml'), 'notify = ["x"]\n')} (its notify command)`],
    ],
    [
      "an MCP server in the machine's managed_config.toml",
      () => [
        `${write(join(machine(), 'managed_config.toml'), '[mcp_servers.db]\ncommand = "db"\n')} (MCP server "db")`,
      ],
    ],
    [
      'hooks in a managed_config.toml in ~/.codex',
      () => [`${write(join(home, '.codex', 'managed_config.toml'), '[hooks]\n')} (its hooks)`],
    ],
    [
      'a rules folder that cannot be read',
      () => {
        const rules = join(home, '.codex', 'rules')
        mkdirSync(dirname(rules), { recursive: true })
        symlinkSync(rules, rules)
        return [rules]
      },
    ],
    ['nothing: no .codex anywhere', () => []],
    [
      'nothing: a config.toml without hooks, other files in rules/',
      () => {
        write(
          join(home, '.codex', 'config.toml'),
          'model = "x"\n[projects."/a"]\ntrust_level = "trusted"\n',
        )
        write(join(home, '.codex', 'rules', 'README.md'))
        write(join(home, '.codex', 'sessions', 'x.jsonl'))
        return []
      },
    ],
  ]

  it.each(table)('finds %s', (_label, arrange, extra = {}) => {
    const expected = arrange()
    const environment: Record<string, string> = { HOME: home }
    if (extra.CODEX_HOME) environment.CODEX_HOME = join(root, 'codex-home')
    expect(codexOwnAllowances(environment, workspace, machine()).sort()).toEqual(expected.sort())
  })

  it('refuses an asking room, naming each file and what to do, and lets a full-access room start', () => {
    const rules = write(join(home, '.codex', 'rules', 'default.rules'))
    const agent = { pass_env: [], set_env: { HOME: home } }
    for (const mode of ['ask-for-approval', 'approve-for-me', 'plan'] as const) {
      expect(() => refuseCodexOwnAllowances(agent, workspace, {}, mode)).toThrow(
        `Codex's own settings would let it act without asking Assent: ${rules}. Move them aside (an MCP server can go behind assent-gateway), or give the agent a Codex home of its own (CODEX_HOME in its set_env in agents.json)`,
      )
    }
    expect(() => refuseCodexOwnAllowances(agent, workspace, {}, 'full-access')).not.toThrow()
  })

  it("says that a Codex home of the agent's own leaves the machine's folder in force", () => {
    const rules = write(join(machine(), 'rules', 'default.rules'))
    const agent = { pass_env: [], set_env: { HOME: home, CODEX_HOME: join(root, 'own') } }
    expect(() => refuseCodexOwnAllowances(agent, workspace, {}, 'plan', machine())).toThrow(
      `Codex's own settings would let it act without asking Assent: ${rules}. Move them aside (an MCP server can go behind assent-gateway), or give the agent a Codex home of its own (CODEX_HOME in its set_env in agents.json); those in ${machine()} apply to every Codex on this machine`,
    )
  })

  it("reads the agent's own environment: its set_env and pass_env, not the runtime's", () => {
    write(join(root, 'elsewhere', 'rules', 'default.rules'))
    const agent = { pass_env: ['CODEX_HOME'], set_env: { HOME: home } }
    const source = { CODEX_HOME: join(root, 'elsewhere') }
    expect(() => refuseCodexOwnAllowances(agent, workspace, source, 'plan')).toThrow(/elsewhere/)
    expect(() =>
      refuseCodexOwnAllowances({ ...agent, pass_env: [] }, workspace, source, 'plan'),
    ).not.toThrow()
  })
})

describe('what in a Codex config.toml acts without asking', () => {
  const table: Array<[string, string, string[]]> = [
    ['a model and a provider', 'model = "o"\n[model_providers.x]\nname = "x"\n', []],
    [
      'an MCP server',
      '[mcp_servers.github]\ncommand = "npx"\nargs = ["gh"]\n',
      ['MCP server "github"'],
    ],
    [
      'an MCP server set to approve, by a tool of its own',
      '[mcp_servers.notes.tools.write]\napproval_mode = "approve"\n',
      ['MCP server "notes"'],
    ],
    [
      'an MCP server with its env, and a quoted name',
      '[mcp_servers."my.db"]\ncommand = "db"\n[mcp_servers."my.db".env]\nTOKEN = "x"\n',
      ['MCP server "my.db"'],
    ],
    ['an MCP server turned off', '[mcp_servers.old]\ncommand = "x"\nenabled = false\n', []],
    [
      'servers as an inline table',
      'mcp_servers = { a = { command = "x" } }\n',
      ['its MCP servers'],
    ],
    ['servers by dotted keys', '[mcp_servers]\nb.command = "x"\n', ['its MCP servers']],
    ['servers by dotted keys at the top', 'mcp_servers.c.command = "x"\n', ['its MCP servers']],
    ['hooks as a table', '[hooks]\nstop = []\n', ['its hooks']],
    ['hooks as a key', 'hooks = { stop = [] }\n', ['its hooks']],
    ['a comment that names them', '# [mcp_servers.x]\n# hooks = 1\nmodel = "o"\n', []],
    [
      'a server turned off only inside a multi-line string of its arguments',
      '[mcp_servers.x]\ncommand = "sh"\nargs = ["-c", """touch y\nenabled = false\n"""]\n',
      ['MCP server "x"'],
    ],
    [
      'notify after a multi-line string that holds a table header',
      'a = """\n[tui]\n"""\nnotify = ["x"]\n',
      ['its notify command'],
    ],
    [
      'the same in a multi-line literal string, with a quote that closes it',
      "a = '''\n[tui]\n''''\nnotify = ['x']\n",
      ['its notify command'],
    ],
    [
      'an escaped quote inside a multi-line string',
      'a = """x\\"""\n[tui]\n"""\nnotify = ["x"]\n',
      ['its notify command'],
    ],
    [
      'quotes in a comment, and a string with a hash',
      '# it\'s "x\nmodel = "a#b"\nnotify = ["x"]\n',
      ['its notify command'],
    ],
    ['a string left open', 'a = """\nnotify = 1\n', ['strings this reading cannot follow']],
    ['a one-line string left open', 'a = "x\nnotify = 1\n', ['strings this reading cannot follow']],
    ['a notify command', 'notify = ["notify-send", "Codex"]\n', ['its notify command']],
    ['an empty notify command', 'notify = []\n', ['its notify command']],
    [
      'notify among the top keys, before any table',
      'model = "o"\nnotify = [\n  "sh",\n]\n[tui]\nnotifications = true\n',
      ['its notify command'],
    ],
    ['a key named notify inside another table', '[projects."/a"]\nnotify = "x"\n', []],
    [
      'a plugin',
      '[plugins."github@openai-curated"]\nenabled = true\n',
      ['plugin "github@openai-curated"'],
    ],
    ['a plugin with nothing but its name', '[plugins.notes]\n', ['plugin "notes"']],
    ['a plugin turned off', '[plugins."slack@openai-curated"]\nenabled = false\n', []],
    [
      'a plugin and a server of the same name, one of them turned off',
      '[plugins.x]\nenabled = false\n[mcp_servers.x]\ncommand = "x"\n',
      ['MCP server "x"'],
    ],
    [
      'a plugin naming the gateway, which is no gateway',
      '[plugins.assent]\nnote = "assent-gateway"\n',
      ['plugin "assent"'],
    ],
    ['plugins as an inline table', 'plugins = { a = { enabled = true } }\n', ['its plugins']],
    ['plugins by dotted keys', '[plugins]\n"a@b".enabled = true\n', ['its plugins']],
  ]

  it.each(table)('%s', (_label, text, found) => {
    expect(configAllowances(text)).toEqual(found)
  })
})

describe("a server that starts Assent's own gateway, and nothing else", () => {
  const node = process.execPath
  const entry = GATEWAY_ENTRY
  /** A PATH folder with `assent-gateway` linked to the entry, and one
   *  inside the workspace with a `node` of the repository's. */
  const check = (workspaceFirst = false): GatewayCheck => {
    const bin = join(root, 'bin')
    mkdirSync(bin, { recursive: true })
    symlinkSync(entry, join(bin, 'assent-gateway'))
    write(join(workspace, 'node'), '#!/bin/sh\n')
    const folders = [bin, dirname(node)]
    return {
      searchPath: (workspaceFirst ? [workspace, ...folders] : folders).join(':'),
      writable: [workspace],
    }
  }
  const server = (lines: string) => `[mcp_servers.assent]\n${lines}\n`
  const table: Array<[string, () => string, boolean, boolean?]> = [
    [
      'node and the entry, with its flags',
      () =>
        server(
          `command = ${JSON.stringify(node)}\nargs = [${JSON.stringify(entry)}, "--config", "m.json"]`,
        ),
      true,
    ],
    [
      'node found on PATH, its arguments over several lines, a tool set to approve',
      () =>
        server(
          `command = "node"\nargs = [\n  ${JSON.stringify(entry)}, # the gateway\n  "--workspace", "/w",\n]\nrequired = true`,
        ) + '[mcp_servers.assent.tools.notes__write_note]\napproval_mode = "approve"\n',
      true,
    ],
    [
      'its bin, found on PATH',
      () => server('command = "assent-gateway"\nargs = ["--config", "/m.json"]'),
      true,
    ],
    ['its entry, named as the command', () => server(`command = ${JSON.stringify(entry)}`), true],
    [
      'a command that only names the gateway among its arguments',
      () => server('command = "sh"\nargs = ["-c", "touch x", "assent-gateway"]'),
      false,
    ],
    [
      'a shell given the entry after its script',
      () => server(`command = "sh"\nargs = ["-c", "evil", ${JSON.stringify(entry)}]`),
      false,
    ],
    [
      'node given a flag before the entry, which runs another file first',
      () => server(`command = "node"\nargs = ["--require", "/tmp/x.js", ${JSON.stringify(entry)}]`),
      false,
    ],
    [
      'a node the workspace holds, found first on PATH',
      () => server(`command = "node"\nargs = [${JSON.stringify(entry)}]`),
      false,
      true,
    ],
    [
      'a node the workspace holds, by its absolute path',
      () =>
        server(
          `command = ${JSON.stringify(join(workspace, 'node'))}\nargs = [${JSON.stringify(entry)}]`,
        ),
      false,
    ],
    [
      'the gateway with an env of its own (NODE_OPTIONS runs code first)',
      () =>
        server(`command = "node"\nargs = [${JSON.stringify(entry)}]`) +
        '[mcp_servers.assent.env]\nNODE_OPTIONS = "--require /tmp/x.js"\n',
      false,
    ],
    [
      'the gateway with env as a key',
      () => server(`command = "node"\nargs = [${JSON.stringify(entry)}]\nenv = { A = "1" }`),
      false,
    ],
    [
      'another copy of the gateway, not this one',
      () =>
        server(
          `command = "node"\nargs = [${JSON.stringify(write(join(root, 'other', 'src', 'gateway', 'main.ts')))}]`,
        ),
      false,
    ],
    ['a relative entry', () => server('command = "node"\nargs = ["src/gateway/main.ts"]'), false],
    ['a command by a relative path', () => server('command = "./assent-gateway"'), false],
    [
      'arguments that are not all plain strings',
      () => server(`command = "node"\nargs = [${JSON.stringify(entry)}, 3]`),
      false,
    ],
  ]

  it.each(table)('%s', (_label, config, isGateway, workspaceFirst) => {
    const gateway = check(workspaceFirst)
    expect(configAllowances(config(), gateway)).toEqual(isGateway ? [] : ['MCP server "assent"'])
  })

  it('takes no server for the gateway without a check, where the entry is not found, or where the agent can edit it', () => {
    const text = server(`command = "node"\nargs = [${JSON.stringify(entry)}]`)
    expect(configAllowances(text)).toEqual(['MCP server "assent"'])
    const gateway = check()
    const missing = { ...gateway, entry: join(root, 'no', 'main.ts') }
    expect(configAllowances(text, missing)).toEqual(['MCP server "assent"'])
    // A gateway in the workspace (an Assent checkout) is one the agent can edit.
    const editable = { ...gateway, writable: [dirname(dirname(realpathSync(entry)))] }
    expect(configAllowances(text, editable)).toEqual(['MCP server "assent"'])
    expect(configAllowances(text, { ...editable, writable: [workspace] })).toEqual([])
  })
})
