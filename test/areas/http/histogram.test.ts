// The request and query histograms are our own (src/http/histogram.ts): what Prometheus
// scrapes must be what prom-client's Histogram would have written for the same observations.
import { describe, expect, it } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import { LabelledHistogram } from '../../../src/http/histogram.js';

const BOUNDS = [0.001, 0.01, 0.1];
const OBSERVED = [0.0005, 0.001, 0.002, 0.05, 0.05, 3];

describe('LabelledHistogram', () => {
  it('writes the exposition prom-client writes: cumulative buckets, +Inf, sum and count per series', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const mine = new LabelledHistogram('h_seconds', 'help text', BOUNDS, ours);
    const reference = new Histogram({ name: 'h_seconds', help: 'help text', labelNames: ['route', 'status'], buckets: BOUNDS, registers: [theirs] });
    for (const [route, status] of [['/a', '200'], ['/b', '404']]) {
      const series = mine.series(`${route} ${status}`, () => ({ route, status }));
      for (const v of OBSERVED) {
        series.observe(v);
        reference.observe({ route, status }, v);
      }
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('h_seconds_bucket{le="0.01",route="/a",status="200"} 3');
  });

  it('keeps one series per key, and reset empties them', async () => {
    const registry = new Registry();
    const h = new LabelledHistogram('k_seconds', 'k', BOUNDS, registry);
    h.series('x', () => ({ kind: 'select' })).observe(0.02);
    h.series('x', () => ({ kind: 'other' })).observe(0.02);
    expect(await registry.metrics()).toContain('k_seconds_count{kind="select"} 2');
    expect(await registry.metrics()).not.toContain('kind="other"');
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('k_seconds_count{kind="select"} 0');
  });
});
