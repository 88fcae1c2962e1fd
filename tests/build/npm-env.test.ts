import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-npm-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment the image build (scripts/test-image.sh) and CI (.ci/run) give npm: NAME → value. */
function npmEnvironment(): Map<string, string> {
  const set = new Map<string, string>();
  for (const file of ['scripts/test-image.sh', '.ci/run']) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const match of text.matchAll(/(?:--env |export )(npm_[a-z_]+)="?([^"\s]+)/g)) set.set(match[1]!, match[2]!);
  }
  return set;
}

describe('npm in the image build and CI', () => {
  it('is given node-gyp’s settings under node-gyp’s own name, none npm warns about at every step', () => {
    const names = [...npmEnvironment().keys()];
    expect(names).toContain('npm_package_config_node_gyp_nodedir');
    // npm 11 warns "Unknown env config" for each npm_config_ setting it does not know, nodedir among them.
    expect(names.filter((name) => name.startsWith('npm_config_'))).toEqual([]);
  });

  it('builds native modules against the headers that name points at (npm’s own node-gyp)', () => {
    writeFileSync(path.join(dir, 'binding.gyp'), "{'targets':[{'target_name':'x','sources':['x.c']}]}");
    writeFileSync(path.join(dir, 'x.c'), 'int x;\n');
    // The npm running these tests (npm_execpath), or the one on PATH: its bin/ lies beside its node-gyp.
    const npmCli =
      process.env.npm_execpath ??
      realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
    const nodeGyp = path.join(path.dirname(npmCli), '../node_modules/node-gyp/bin/node-gyp.js');
    const headers = path.join(dir, 'headers');
    const run = spawnSync(process.execPath, [nodeGyp, 'configure'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir, npm_package_config_node_gyp_nodedir: headers },
      timeout: 60_000,
    });
    // It reads the Node configuration from there (none is there: the build stops, having looked).
    expect(`${run.stdout}${run.stderr}`).toContain(path.join(headers, 'include/node/config.gypi'));
  });
});
