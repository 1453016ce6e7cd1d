import { walkCommandLinesThroughDoors } from './support/command-line-doors.ts'

/**
 * Code in another language among a command's words, or a command line a
 * tool runs of its own: `python3 -c 'import os; os.system("git config
 * …")'` names nothing the rule reads, and changes what git runs. One table
 * of such lines, walked through the rule every door applies (Codex's
 * command, an ACP agent's execute call, an MCP server's shell tool,
 * Assent's own `run_command` as an argv and through its shell), and
 * through the reviewer and the webhook that allow everything for an
 * external agent, with controls each door still answers: a script file,
 * an awk or sed program that runs nothing (src/runtime/policy/inline-code.ts).
 */

const H = 'git config core.hooksPath /tmp/h'

const LINES: readonly string[] = [
  `python3 -c 'import os; os.system("${H}")'`,
  `python -Bc 'import os; os.system("${H}")'`,
  `perl -e 'system("${H}")'`,
  `perl -pi -e 'system("${H}")' docs/ok.md`,
  `ruby -e 'system("${H}")'`,
  `node -e 'require("child_process").execSync("${H}")'`,
  `node --eval='require("child_process").execSync("${H}")'`,
  `php -r 'system("${H}");'`,
  `awk 'BEGIN { system("${H}") }'`,
  `awk 'BEGIN { print "x" | "sh" }'`,
  `sed -n '1e ${H}' docs/ok.md`,
  `sed 's/.*/${H}/e' docs/ok.md`,
  `tar --checkpoint=1 --checkpoint-action=exec='${H}' -cf /tmp/a.tar docs`,
  `zip -T -TT '${H}' /tmp/a.zip docs`,
  `vim -c '!${H}' -c q`,
  `make --eval='all:; ${H}'`,
  `make -f /dev/stdin <<< 'all:; ${H}'`,
  `expect -c 'spawn ${H}'`,
  `tmux new -d '${H}'`,
  `at now <<< '${H}'`,
  `crontab <<< '* * * * * ${H}'`,
  `socat - EXEC:'${H}'`,
  `ncat -e '${H}' localhost 1`,
]

/** The lines that run here as written, each setting core.hooksPath. */
const RUNS_HERE: readonly string[] = [LINES[0] ?? '', LINES[2] ?? '', LINES[8] ?? '']

const CONTROLS: readonly string[] = [
  'python3 build.py',
  'python3 -m pytest -q',
  'perl script.pl',
  'node build.js',
  "awk '{ print $1 }' docs/ok.md",
  "sed -i 's/a/b/' docs/ok.md",
  'make -C docs',
  'tmux ls',
  'crontab -l',
]

walkCommandLinesThroughDoors({
  prefix: 'assent-inline-code-',
  lines: LINES,
  controls: CONTROLS,
  runsHere: RUNS_HERE,
})
