import { walkCommandLinesThroughDoors } from './support/command-line-doors.ts'

/**
 * A line that has a later command run what none of its words says: a
 * `trap`'s action, run as the shell exits, `mapfile -C`'s callback, a
 * script that is the input (`source /dev/stdin`), a prompt bash expands
 * or runs (`PS4`, `PROMPT_COMMAND`), a pager, filter, editor or askpass
 * program given as an option or a variable (`man -P`, `PAGER`, `LESSOPEN`,
 * `git grep -O`), and a name given to another
 * program for the commands after it, an alias (bash expands one in a
 * script after `shopt -s expand_aliases`, zsh always) or bash's `hash
 * -p`. `alias g=git`, then `g config core.hooksPath /tmp/h`, changes what
 * git runs with no `git config` among the words. One table of such lines,
 * walked through the rule every door applies (Codex's command, an ACP
 * agent's execute call, an MCP server's shell tool, Assent's own
 * `run_command` given as an argv and through its shell), and through the
 * reviewer and the webhook that allow everything for an external agent,
 * with controls each door still answers. (src/runtime/policy/hand-offs.ts
 * reads a trap's action as a line of its own, shell-commands.ts leaves an
 * alias or `hash -p` to the person.)
 */

const LINES: readonly string[] = [
  "trap 'git config core.hooksPath /tmp/h' EXIT",
  "trap -- 'cp x .git/hooks/post-merge' EXIT INT",
  'shopt -s expand_aliases; alias g=git\ng config core.hooksPath /tmp/h',
  "alias g='git config'\ng core.hooksPath /tmp/h",
  'hash -p /usr/bin/git g; g config core.hooksPath /tmp/h',
  // A line bash runs for mapfile's lines, a script that is the input, a
  // prompt bash expands as it traces, one it runs as it prompts.
  "mapfile -C 'git config core.hooksPath /tmp/h #' -c 1 a < docs/ok.md",
  "source /dev/stdin <<< 'git config core.hooksPath /tmp/h'",
  "PS4='$(git config core.hooksPath /tmp/h)' bash -xc ls",
  "PROMPT_COMMAND='git config core.hooksPath /tmp/h' bash -ic ls",
  // A line a program runs as its pager, filter, editor or askpass, given
  // as an option or a variable.
  "man -P 'git config core.hooksPath /tmp/h' ls",
  "man --pager='git config core.hooksPath /tmp/h' ls",
  "PAGER='git config core.hooksPath /tmp/h' git log",
  "export MANPAGER='git config core.hooksPath /tmp/h'; man ls",
  "LESSOPEN='|git config core.hooksPath /tmp/h %s' less docs/ok.md",
  "EDITOR='cp x .git/hooks/post-merge' git commit",
  "SSH_ASKPASS='git config core.hooksPath /tmp/h' SSH_ASKPASS_REQUIRE=force ssh host",
  "git grep -O'git config core.hooksPath /tmp/h' ok",
  "git grep --open-files-in-pager='git config core.hooksPath /tmp/h' ok",
]

/** The lines of `LINES` bash runs here as written, each setting
 *  core.hooksPath (bash takes no `PS4` from its environment when run as
 *  root, as tests may be). */
const BASH_RUNS = [LINES[0], LINES[2], LINES[4], LINES[5], LINES[6]].map((line) => line ?? '')

const CONTROLS: readonly string[] = [
  "trap 'rm -f out.tmp' EXIT; ls docs",
  'alias',
  'alias ll',
  'hash -r; ls docs',
  'echo trap',
  'mapfile -t a < docs/ok.md; echo done',
  'source ./env.sh',
  'man -P cat ls',
  'PAGER=cat git log -1',
  "LESSOPEN='|lesspipe %s' less docs/ok.md",
  'git grep -n ok docs',
]

walkCommandLinesThroughDoors({
  prefix: 'assent-later-commands-',
  lines: LINES,
  controls: CONTROLS,
  runsHere: BASH_RUNS,
})
