// npm's pre-step of `npm start` and `npm test` (package.json's prestart and pretest): on a Node
// older than package.json's `engines.node`, stop at once and say what to install, rather than
// fail minutes into a test run. (`npm ci` stops by itself: .npmrc sets engine-strict.) CommonJS
// and old syntax on purpose: it must run on the old Node it refuses.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (above) */
var path = require("path");
var wanted = require(path.join(__dirname, "..", "package.json")).engines.node;
/* eslint-enable @typescript-eslint/no-require-imports */

/** "22.15.0" -> [22, 15, 0] */
function parts(version) {
  return String(version)
    .replace(/^[^\d]*/, "")
    .split(".")
    .map(function (n) {
      return parseInt(n, 10) || 0;
    });
}

/** Only the form package.json uses: ">=X.Y.Z". */
function satisfies(version, range) {
  var match = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range.trim());
  if (!match) throw new Error("scripts/check-node.cjs reads only '>=X.Y.Z' in engines.node, not '" + range + "'");
  var have = parts(version);
  var need = parts(match[1]);
  for (var i = 0; i < 3; i++) {
    if ((have[i] || 0) !== (need[i] || 0)) return (have[i] || 0) > (need[i] || 0);
  }
  return true;
}

module.exports = { satisfies: satisfies };

if (require.main === module && !satisfies(process.versions.node, wanted)) {
  var major = parts(wanted.replace(/^>=\s*/, ""))[0];
  process.stderr.write(
    "\nThis project needs Node " +
      wanted +
      "; this is Node " +
      process.versions.node +
      " (" +
      process.execPath +
      ").\n" +
      "Install Node " +
      major +
      " (https://nodejs.org, or `nvm install " +
      major +
      "` / `fnm install " +
      major +
      "`), then run the command again.\n" +
      "(CI's .ci/run fetches Node " +
      major +
      " itself when the machine's is older.)\n\n",
  );
  process.exit(1);
}
