import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { realGit } from './real-git.ts'

const PACKAGE_JSON = `${JSON.stringify({
  name: 'x',
  husky: { hooks: { 'pre-commit': 'npm run lint' } },
  scripts: {
    lint: './scripts/pkg-lint.sh',
    test: './scripts/npm-test.sh',
    build: './scripts/package-build.sh',
  },
})}\n`

const OVERCOMMIT =
  "plugin_directory: tools/overcommit\nPreCommit:\n  CustomScript:\n    enabled: true\n    command: ['scripts/overcommit.sh']\n"

const MISE_LOCAL = '[env]\n_.path = ["bin", "{{config_root}}/tools/bin"]\n_.file = "dev.env"\n'

/**
 * Configs the person-only table holds that name a script of the workspace
 * as what a tool runs without the person asking for it (at their next
 * `git commit`, as the folder opens in their editor, as they enter it),
 * each with the script it names. Laid by `layToolConfigs`.
 */
export const TOOL_CONFIGS: ReadonlyArray<{
  row: string
  config: string
  text: string
  script: string
}> = [
  {
    row: "a pre-commit local hook's entry",
    config: '.pre-commit-config.yaml',
    text: 'repos:\n  - repo: local\n    hooks:\n      - id: check\n        name: check\n        entry: ./scripts/check.sh\n        language: script\n        files: ^src/\n',
    script: 'scripts/check.sh',
  },
  {
    row: "lefthook's run",
    config: 'lefthook.yml',
    text: 'extends:\n  - lefthook-extra.yml\npre-commit:\n  commands:\n    lint:\n      run: ./scripts/lint.sh {staged_files}\n',
    script: 'scripts/lint.sh',
  },
  {
    row: 'a config lefthook extends',
    config: 'lefthook-extra.yml',
    text: 'pre-push:\n  commands:\n    more:\n      run: ./scripts/extended.sh\n',
    script: 'scripts/extended.sh',
  },
  {
    row: "lefthook's source_dir",
    config: '.lefthook.toml',
    text: 'source_dir = "hook-scripts"\n',
    script: 'hook-scripts/pre-commit/check.sh',
  },
  {
    row: "overcommit's command",
    config: '.overcommit.yml',
    text: OVERCOMMIT,
    script: 'scripts/overcommit.sh',
  },
  {
    row: "overcommit's plugin_directory",
    config: '.overcommit.yml',
    text: OVERCOMMIT,
    script: 'tools/overcommit/pre_commit/check.rb',
  },
  {
    row: 'a husky hook',
    config: '.husky/pre-commit',
    text: '"$(git rev-parse --show-toplevel)/scripts/husky.sh"\nnpm test || :\n',
    script: 'scripts/husky.sh',
  },
  {
    row: 'a script at the top a husky hook runs through node',
    config: '.husky/pre-push',
    text: 'node --no-warnings check-push.js\n',
    script: 'check-push.js',
  },
  {
    row: "lint-staged's command",
    config: '.lintstagedrc.json',
    text: '{ "*.ts": ["./scripts/staged.sh"] }\n',
    script: 'scripts/staged.sh',
  },
  {
    row: "a package script husky v4's hook in package.json runs",
    config: 'package.json',
    text: PACKAGE_JSON,
    script: 'scripts/pkg-lint.sh',
  },
  {
    row: 'a package script a husky hook runs by name (npm test)',
    config: 'package.json',
    text: PACKAGE_JSON,
    script: 'scripts/npm-test.sh',
  },
  {
    row: "one of git's own hooks",
    config: '.git/hooks/pre-push',
    text: '#!/bin/sh\nexec scripts/pre-push.sh "$@"\n',
    script: 'scripts/pre-push.sh',
  },
  {
    row: "an editor's task run as the folder opens",
    config: '.vscode/tasks.json',
    text: '{\n  // Set up on open.\n  "version": "2.0.0",\n  "tasks": [{\n    "label": "setup",\n    "type": "shell",\n    "command": "${workspaceFolder}/scripts/setup.sh",\n    "runOptions": { "runOn": "folderOpen" },\n  }],\n}\n',
    script: 'scripts/setup.sh',
  },
  {
    row: "a dev container's command on the host",
    config: '.devcontainer/devcontainer.json',
    text: '{\n  "image": "debian",\n  "initializeCommand": ["bash", "${localWorkspaceFolder}/scripts/init.sh"]\n}\n',
    script: 'scripts/init.sh',
  },
  {
    row: "mise's hook on entering the folder",
    config: 'mise.toml',
    text: '[tools]\nnode = "22"\n\n[hooks]\nenter = "./scripts/enter.sh"\n',
    script: 'scripts/enter.sh',
  },
  {
    row: 'a folder mise puts first on PATH',
    config: 'mise.local.toml',
    text: MISE_LOCAL,
    script: 'bin/git',
  },
  {
    row: 'a file mise loads the environment from',
    config: 'mise.local.toml',
    text: MISE_LOCAL,
    script: 'dev.env',
  },
  {
    row: "mise's hook in a config of its conf.d",
    config: '.config/mise/conf.d/10-hooks.toml',
    text: '[hooks]\nenter = "./scripts/conf-d.sh"\n',
    script: 'scripts/conf-d.sh',
  },
  {
    row: "mise's file sourced on entering the folder",
    config: '.config/mise/config.toml',
    text: '[env]\n_.source = "{{config_root}}/scripts/env.sh"\n',
    script: 'scripts/env.sh',
  },
  ...['scripts/direnv-env.sh', 'direnv-bin/git'].map((script) => ({
    row: `direnv's .envrc, sourcing a file and putting a folder first on PATH (${script})`,
    config: '.envrc',
    text: 'source_env scripts/direnv-env.sh\nPATH_add direnv-bin\n',
    script,
  })),
  {
    row: "npm's script-shell",
    config: '.npmrc',
    text: 'script-shell=./scripts/npm-shell.sh\n',
    script: 'scripts/npm-shell.sh',
  },
  {
    row: "yarn's yarnPath",
    config: '.yarnrc.yml',
    text: 'yarnPath: .yarn/releases/yarn-4.1.0.cjs\n',
    script: '.yarn/releases/yarn-4.1.0.cjs',
  },
  ...[
    ['make', 'Makefile'],
    ['just', 'justfile'],
    ['task', 'Taskfile.yml'],
  ].map(([runner, script]) => ({
    row: `a hook calling ${runner} by name`,
    config: '.husky/post-commit',
    text: 'make check\njust lint\ntask lint\n',
    script: script ?? '',
  })),
]

/** A script no config names. */
export const UNNAMED_SCRIPT = 'scripts/other.sh'

/** A script only a CI workflow names: run on the next push, in CI, as the
 *  project's code is; the agent may change it as it changes the rest. */
export const CI_SCRIPT = 'scripts/ci.sh'

/** A script only a package script no hook runs names: the project's
 *  code, run when the person runs it. */
export const PACKAGE_SCRIPT = 'scripts/package-build.sh'

/** A script only a build task the person starts names. */
export const BUILD_SCRIPT = 'scripts/build.sh'

/** Makes `workspace` a repository holding every one of `TOOL_CONFIGS`, each
 *  script it names (writing `ran.txt` at the top), the controls, and a
 *  workflow naming `CI_SCRIPT`. */
export function layToolConfigs(ceiling: string, workspace: string): void {
  realGit(ceiling, workspace, 'init', '-q')
  mkdirSync(join(workspace, 'scripts'), { recursive: true })
  const configs: Array<[string, string]> = [
    ...TOOL_CONFIGS.map(({ config, text }): [string, string] => [config, text]),
    [
      '.github/workflows/ci.yml',
      `on: push\njobs:\n  ci:\n    steps:\n      - run: ./${CI_SCRIPT}\n`,
    ],
  ]
  for (const [config, text] of configs) {
    mkdirSync(dirname(join(workspace, config)), { recursive: true })
    writeFileSync(join(workspace, config), text)
  }
  chmodSync(join(workspace, '.husky/pre-commit'), 0o755)
  chmodSync(join(workspace, '.git/hooks/pre-push'), 0o755)
  const scripts = [...TOOL_CONFIGS.map((each) => each.script), UNNAMED_SCRIPT, CI_SCRIPT]
  for (const script of [...scripts, PACKAGE_SCRIPT]) {
    mkdirSync(dirname(join(workspace, script)), { recursive: true })
    writeFileSync(join(workspace, script), '#!/bin/sh\necho ran > ran.txt\n')
    chmodSync(join(workspace, script), 0o755)
  }
}
