// What a function's bundle gets for `node:http` (serverless.yml, custom.esbuild.alias): Node's own
// module, the same object an ES import's default export is, taken without an ES import.
//
// Why: on Node 22 an ES import of `node:http` builds its ES module facade, which reads every export
// once, and three of them (WebSocket, CloseEvent, MessageEvent) are getters that load Node's
// bundled undici: 71 M instructions of the GraphQL function's import, 56-63 M of every
// function's and floor's cold start (bench/README.md, "node:http without an ES import"; callgrind,
// Node 22.23). The AWS SDK imports `node:http` in every function (the instance-metadata
// credential provider, and the HTTP handler for an http:// endpoint) and none of them uses those
// three classes. `process.getBuiltinModule` (Node >= 22.3) returns the module without the facade,
// so the getters run only if read.
module.exports = process.getBuiltinModule("node:http");
