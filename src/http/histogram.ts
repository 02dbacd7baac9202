// A Prometheus histogram for the per-request and per-query paths. prom-client's Histogram
// validates and hashes the labels object on every observation, even through a child from
// `labels()`: about 2 µs of every request, which served no request. Here a series (one
// set of label values) is looked up once by its caller and an observation is a bucket
// scan and two additions. The registry reads it as it reads its own metrics (`get()`),
// in the same exposition format.
import type { Registry } from 'prom-client';

export interface HistogramSeries {
  observe(seconds: number): void;
}

interface Series extends HistogramSeries {
  labels: Record<string, string>;
  /** Observations per bucket, not cumulative (the last slot: above every bound). */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class LabelledHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    register: Registry,
  ) {
    register.registerMetric(this as never);
  }

  /**
   * The series of these label values, made on first use. `key` names it (callers keep a
   * bounded set: routes are patterns, query kinds a handful).
   */
  series(key: string, labels: () => Record<string, string>): HistogramSeries {
    let s = this.all.get(key);
    if (!s) {
      const bounds = this.bounds;
      const series: Series = {
        labels: labels(),
        counts: new Float64Array(bounds.length + 1),
        sum: 0,
        count: 0,
        observe(seconds: number) {
          let i = 0;
          while (i < bounds.length && seconds > bounds[i]) i++;
          series.counts[i]++;
          series.sum += seconds;
          series.count++;
        },
      };
      this.all.set(key, (s = series));
    }
    return s;
  }

  /** What prom-client's registry renders (the shape of its own Histogram's `get()`). */
  get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const s of this.all.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset() {
    for (const s of this.all.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
