// js_client.mjs — the official Hugging Face JS client (@huggingface/hub, pinned in package.json)
// run against a cache and a hub for tests/py/test_hub_js.py; one JSON object on stdout.
//   node js_client.mjs snapshot HUB_URL CACHE ORG/NAME [REVISION]
//        snapshotDownload: model info, the tree, every file into CACHE; {"snapshot": DIR}
//   node js_client.mjs scan CACHE
//        scanCacheDir: {"repos": [{id, path, size, filesCount, revisions: [{commitOid, refs,
//        size, files: [{path, blobPath, size}]}]}], "warnings": [messages]}
//   node js_client.mjs cached HUB_URL CACHE ORG/NAME REVISION PATH...
//        downloadFileToCacheDir for each PATH: {"paths": [what it returned, in order]}
// The token, when a test sets one, comes from HF_TOKEN (passed as accessToken).
import { snapshotDownload, scanCacheDir, downloadFileToCacheDir } from "@huggingface/hub";

const [cmd, ...args] = process.argv.slice(2);
const accessToken = process.env.HF_TOKEN || undefined;
// downloadFileToCacheDir says "Downloading X to Y.incomplete" on console.debug: keep stdout JSON
console.debug = (...m) => process.stderr.write(m.join(" ") + "\n");

async function main() {
	if (cmd === "snapshot") {
		const [hubUrl, cacheDir, repo, revision] = args;
		const dir = await snapshotDownload({ repo: { type: "model", name: repo }, hubUrl, cacheDir, revision, accessToken });
		return { snapshot: dir };
	}
	if (cmd === "scan") {
		const info = await scanCacheDir(args[0]);
		return {
			repos: info.repos.map((r) => ({
				id: r.id,
				path: r.path,
				size: r.size,
				filesCount: r.filesCount,
				revisions: r.revisions.map((v) => ({
					commitOid: v.commitOid,
					refs: v.refs,
					size: v.size,
					path: v.path,
					files: v.files.map((f) => ({ path: f.path, blobPath: f.blob.path, size: f.blob.size })),
				})),
			})),
			warnings: info.warnings.map((w) => String(w && w.message ? w.message : w)),
		};
	}
	if (cmd === "cached") {
		const [hubUrl, cacheDir, repo, revision, ...paths] = args;
		const out = [];
		for (const path of paths) {
			out.push(await downloadFileToCacheDir({ repo: { type: "model", name: repo }, path, revision, hubUrl, cacheDir, accessToken }));
		}
		return { paths: out };
	}
	throw new Error(`unknown command ${cmd}`);
}

main().then(
	(o) => process.stdout.write(JSON.stringify(o) + "\n"),
	(e) => {
		process.stderr.write(`js_client ${cmd}: ${e && e.stack ? e.stack : e}\n`);
		process.exit(1);
	},
);
