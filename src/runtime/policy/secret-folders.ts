/**
 * The person's folders that hold credentials, relative to their home
 * folder. One list, read by two rules: the sensitive-path rule
 * (sensitive-paths.ts), under which any change inside one needs a person
 * every time and any read asks, and the command sandbox, which hides each
 * of them behind an empty folder so an allowed command cannot read a key.
 * A folder added here is covered by both at once.
 *
 * Each entry is a relative path of one or more segments, written with `/`
 * and in the case the tool writes it (the sandbox hides that path; the
 * rule matches it in any case): a folder, or a file where a tool keeps its
 * secret beside what is not (the sandbox shows a hidden file as an empty
 * one).
 */
/** Browsers' and mail clients' profiles: their cookies are the person's
 *  sessions, their logins stored passwords. Tens of thousands of files.
 *  A browser installed as a Flatpak keeps its profile in its own folder
 *  (`.var/app/<id>/config/…`), one installed as a Snap in `snap/<name>`;
 *  Firefox's keeps its `.mozilla` name there, which the rule finds
 *  anywhere, Chromium's family does not. */
export const BROWSER_PROFILES: readonly string[] = Object.freeze([
  '.mozilla',
  '.thunderbird',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  '.var/app/com.google.Chrome/config/google-chrome',
  '.var/app/org.chromium.Chromium/config/chromium',
  '.var/app/com.brave.Browser/config/BraveSoftware',
  '.var/app/com.microsoft.Edge/config/microsoft-edge',
  '.var/app/com.vivaldi.Vivaldi/config/vivaldi',
  'snap/chromium/common/chromium',
  'snap/brave/current/.config/BraveSoftware',
])

/** Chat apps built on Electron, whose stores hold the person's signed-in
 *  session (Discord's token as plain text in its Local Storage, Slack's
 *  cookies, Signal's database and its key): whoever reads them is the
 *  person there. Thousands of files. */
export const CHAT_SESSIONS: readonly string[] = Object.freeze([
  '.config/discord',
  '.config/Slack',
  '.config/Signal',
  '.var/app/com.discordapp.Discord/config/discord',
  '.var/app/com.slack.Slack/config/Slack',
  '.var/app/org.signal.Signal/config/Signal',
])

/** Where code editors built on VS Code keep what their extensions store
 *  (`state.vscdb`, and each extension's own folder): the person's
 *  sign-ins there (GitHub's, Cursor's access token, an extension's API
 *  key), sealed with a key that is a fixed word where no keyring answers
 *  (Electron's `basic` store), or kept as plain text. Thousands of files. */
export const EDITOR_STORES: readonly string[] = Object.freeze([
  '.config/Code/User/globalStorage',
  '.config/Code - Insiders/User/globalStorage',
  '.config/VSCodium/User/globalStorage',
  '.config/Cursor/User/globalStorage',
  '.config/Windsurf/User/globalStorage',
  '.vscode-server/data/User/globalStorage',
  '.cursor-server/data/User/globalStorage',
  '.var/app/com.visualstudio.code/config/Code/User/globalStorage',
  'Library/Application Support/Code/User/globalStorage',
  'Library/Application Support/Cursor/User/globalStorage',
  'AppData/Roaming/Code/User/globalStorage',
  'AppData/Roaming/Cursor/User/globalStorage',
])

/** Wallets' keys, beside their chain data (as large). */
export const WALLET_DATA: readonly string[] = Object.freeze(['.bitcoin', '.ethereum'])

export const HOME_SECRET_FOLDERS: readonly string[] = Object.freeze([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gh',
  '.config/gcloud',
  '.password-store',
  // The Secret Service's keyrings (gnome-keyring): the person's stored
  // passwords, Assent's integrity key among them.
  '.local/share/keyrings',
  // KDE's wallet, the same for Plasma.
  '.local/share/kwalletd',
  // Where AI agents and their tools keep the person's sign-in: one file
  // each, beside settings and history that are not secret.
  '.codex/auth.json',
  '.claude/.credentials.json',
  '.gemini/oauth_creds.json',
  '.config/github-copilot',
  '.cache/huggingface/token',
  // Other tools' sign-ins kept in the home folder.
  '.config/op',
  '.vault-token',
  // Cloud and deployment command lines' tokens and keys.
  '.config/glab-cli',
  '.config/doctl',
  '.oci',
  '.config/rclone',
  '.fly',
  '.pulumi',
  '.netlify',
  '.local/share/com.vercel.cli',
  '.config/configstore',
  '.config/solana',
  // Build tools' repository passwords and signing keys.
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.gem/credentials',
  '.cargo/credentials',
  '.config/composer/auth.json',
  '.composer/auth.json',
  // Git's own credential store where XDG puts it, beside its config.
  '.config/git/credentials',
  // Container registries' logins (podman, buildah, skopeo).
  '.config/containers/auth.json',
  '.terraformrc',
  '.config/hub',
  '.mylogin.cnf',
  // Payment, edge and data tools' sign-ins.
  '.config/stripe',
  '.wrangler',
  '.dbt/profiles.yml',
  // Secrets tools' private keys (sops's age keys), and the sign-ins of
  // data, tunnel, hosting and forge command lines.
  '.config/sops',
  '.kaggle',
  '.config/ngrok',
  '.ngrok2',
  '.supabase',
  '.railway',
  '.config/hcloud',
  '.config/tea',
  // CircleCI's command line's token (beside the project's `.circleci`,
  // which runs later), Poetry's and Helm's repository passwords,
  // Teleport's keys and certificates, MinIO's and Twilio's keys, and the
  // passwords FileZilla and Remmina keep for the servers they connect to.
  '.circleci/cli.yml',
  '.config/pypoetry/auth.toml',
  '.config/helm/repositories.yaml',
  '.tsh',
  '.mc/config.json',
  '.twilio-cli',
  '.config/filezilla',
  '.config/remmina',
  '.local/share/remmina',
  // Shells' and database clients' histories: tokens and passwords typed
  // on a command line stay in them.
  '.bash_history',
  '.zsh_history',
  '.local/share/fish/fish_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
  '.python_history',
  '.node_repl_history',
  ...BROWSER_PROFILES,
  ...CHAT_SESSIONS,
  ...EDITOR_STORES,
  'Library/Keychains',
  ...WALLET_DATA,
  '.electrum',
])
