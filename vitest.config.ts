import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Under CI=true the run also writes a JSON report, which .ci/run sums into its last line.
const ci = process.env.CI === 'true' || process.env.CI === '1';

// Packages resolve each other's TypeScript sources through the `@tsge/source` export condition,
// so tests need no build step.
export default defineConfig({
  resolve: { conditions: ['@tsge/source', ...defaultServerConditions] },
  ssr: { resolve: { conditions: ['@tsge/source', ...defaultServerConditions] } },
  test: {
    include: ['packages/**/src/**/*.test.ts', 'apps/**/src/**/*.test.ts', 'tools/**/src/**/*.test.ts', 'examples/**/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ci ? ['default', 'json'] : ['default'],
    outputFile: { json: process.env.TSGE_TEST_REPORT ?? 'out/test-report.json' },
  },
});
