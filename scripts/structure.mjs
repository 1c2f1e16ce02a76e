// `pnpm structure [rev] [--files]`: the workspace's shape at a git revision (default HEAD), read from
// git alone so any two revisions compare side by side: each package with its workspace dependencies
// (the arrows), its source files and lines (tests apart), and its files over 300 lines; with
// `--files`, every source file with its line count.
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
const listFiles = args.includes('--files');
const rev = args.find((arg) => !arg.startsWith('--')) ?? 'HEAD';
const LONG_FILE_LINES = 300;

function git(...gitArgs) {
  return execFileSync('git', gitArgs, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

const paths = git('ls-tree', '-r', '--name-only', rev, '--', 'packages', 'apps').split('\n');
const manifests = paths.filter((p) => /^(packages|apps)\/[^/]+\/package\.json$/.test(p));
const sources = paths.filter((p) => /^(packages|apps)\/[^/]+\/src\/.*\.tsx?$/.test(p));

/** Line counts of every source file, read in one `git cat-file --batch`. */
function lineCounts(files) {
  const out = execFileSync('git', ['cat-file', '--batch'], {
    input: files.map((f) => `${rev}:${f}`).join('\n') + '\n',
    maxBuffer: 256 * 1024 * 1024,
  });
  const counts = new Map();
  let at = 0;
  for (const file of files) {
    const headerEnd = out.indexOf(0x0a, at);
    const size = Number(out.toString('utf8', at, headerEnd).split(' ')[2]);
    const body = out.subarray(headerEnd + 1, headerEnd + 1 + size);
    let lines = 0;
    for (const byte of body) if (byte === 0x0a) lines++;
    counts.set(file, lines);
    at = headerEnd + 1 + size + 1;
  }
  return counts;
}

const counts = lineCounts(sources);
console.log(`structure at ${git('rev-parse', '--short', rev).trim()}\n`);
for (const manifestPath of manifests.sort()) {
  const dir = manifestPath.slice(0, -'/package.json'.length);
  const manifest = JSON.parse(git('show', `${rev}:${manifestPath}`));
  const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })
    .filter((name) => name.startsWith('@nudge/'))
    .sort();
  const files = sources.filter((f) => f.startsWith(`${dir}/src/`));
  const code = files.filter((f) => !f.endsWith('.test.ts'));
  const sum = (list) => list.reduce((total, f) => total + counts.get(f), 0);
  console.log(`${dir} (${manifest.name}) → ${deps.length ? deps.join(', ') : 'no workspace package'}`);
  console.log(
    `  ${code.length} source files, ${sum(code)} lines; ${files.length - code.length} test files, ` +
      `${sum(files) - sum(code)} lines`,
  );
  const long = code.filter((f) => counts.get(f) > LONG_FILE_LINES);
  if (long.length > 0) {
    const named = long.map((f) => `${f.slice(dir.length + 5)} ${counts.get(f)}`).join(', ');
    console.log(`  over ${LONG_FILE_LINES} lines: ${named}`);
  }
  if (listFiles)
    for (const f of files) console.log(`    ${String(counts.get(f)).padStart(5)} ${f.slice(dir.length + 5)}`);
}
