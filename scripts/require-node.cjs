/* global process, console */
// Plain CommonJS on purpose: it must run, and explain itself, on the old Node
// versions it refuses (which cannot load the project's TypeScript scripts).
'use strict'
const [major, minor] = process.versions.node.split('.').map(Number)
// 22.18 is the first 22.x that runs TypeScript files without flags, which
// every npm script here does (and it has the node:sqlite API the store uses);
// 22.19 is the first whose HTTP server keeps idle connections past the time it
// tells clients (keepAliveTimeoutBuffer), which the runtime's server relies on.
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `Assent needs Node.js 22.19 or newer; this is ${process.version}.\n` +
      'Install a newer Node (e.g. `npm install --prefix ~/.node24 node@24` and put ' +
      '~/.node24/node_modules/.bin first on PATH), then run the command again.',
  )
  process.exit(1)
}
