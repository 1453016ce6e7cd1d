/**
 * The names of configs, other than the hook managers' the table spells
 * out, that say what runs at the person's next `git commit`: husky's
 * before v5 and simple-git-hooks' own hooks; what lint-staged and
 * nano-staged run for the staged files when a hook calls them; and
 * commitlint's, loaded as code (or naming a file that is) when a hook
 * checks the commit's message. Each is held as the person's wherever it
 * stands (lint-staged reads one in any folder, for the files below it),
 * and what one at a repository's top names is a program
 * (tool-config-programs.ts). The same keys in a package.json are
 * package-hooks.ts's.
 */
export const HOOK_TOOL_CONFIG_PATTERNS: readonly string[] = [
  '^\\.(?:lintstaged|nanostaged|husky|commitlint)rc(?:\\.\\w+)?$',
  '^(?:lint-staged|husky|commitlint)\\.config\\.[cm]?[jt]s$',
  '^\\.?(?:simple-git-hooks|nano-staged)\\.(?:json|[cm]?js)$',
]
