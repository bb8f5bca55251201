// The words for metered usage (counts, quotas, forecasts) that the console's usage cards and
// `svc usage` both print, so the two read the same. Pure and importing nothing, so the browser
// bundle takes it as it is; the forecast is typed by the fields read (src/ops/contract.ts has the schema).

/** The part of a usage forecast the text is made from. */
export interface ForecastFacts {
  status: 'ok' | 'insufficient-evidence';
  projectedPeriodTotal: number;
}

/** Whole counts as plain digits ("1234"); forecasts are fractional, so rounded. */
export function formatCount(n: number): string {
  return String(Math.round(n));
}

/** "no quota" or the formatted quota. */
export function quotaText(quota: number | null, format: (n: number) => string): string {
  return quota === null ? 'no quota' : format(quota);
}

/** "insufficient evidence (under an hour of data)" or "projected 1234 this month". */
export function forecastText(forecast: ForecastFacts, format: (n: number) => string): string {
  if (forecast.status === 'insufficient-evidence') return 'insufficient evidence (under an hour of data)';
  return `projected ${format(forecast.projectedPeriodTotal)} this month`;
}
