// The files a task runner a hook calls by name runs as code: `make check`
// in a husky hook, lefthook's `run: just lint` or pre-commit's `entry:
// task lint` run the recipe of the workspace's Makefile, justfile or
// Taskfile at the person's next `git commit`, outside any sandbox, as
// `npm test` there runs the package's script (package-hooks.ts). A grant
// that rewrote the recipe would change what the hook runs. Read as the
// hook's other words are (tool-config-programs.ts): a word anywhere in
// the text, a comment included, which can only keep more.

/** Per runner, the files it reads its recipes from, by its own search
 *  order (GNU make's three names; just's; Task's). */
const RUNNER_FILES: Readonly<Record<string, readonly string[]>> = {
  make: ['GNUmakefile', 'makefile', 'Makefile'],
  gmake: ['GNUmakefile', 'makefile', 'Makefile'],
  just: ['justfile', 'Justfile', '.justfile'],
  task: ['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'taskfile.yaml', 'Taskfile.dist.yml'],
  'go-task': ['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'taskfile.yaml'],
}

/** A runner where a command starts: at a line's start, or after white
 *  space, a separator, a quote or a key's `:`/`=`, and ended as a word. */
const RUNNER = /(?:^|[\s;&|("'`:=])(make|gmake|just|task|go-task)(?=$|[\s;&|)"'`])/gm

/** The files the task runners `text` calls by name read, as names at the
 *  folder they run in. */
export function taskRunnerFiles(text: string): string[] {
  const runners = new Set([...text.matchAll(RUNNER)].map((match) => match[1] ?? ''))
  return [...new Set([...runners].flatMap((runner) => RUNNER_FILES[runner] ?? []))]
}
