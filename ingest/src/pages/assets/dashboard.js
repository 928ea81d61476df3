// The dashboard's progressive enhancement (ingest/docs/dashboard.md): every page works without it.
// Copy buttons, confirmations, "choose all" checkboxes, the program switch and the overview's chart.
document.documentElement.classList.add('js');

document.addEventListener('click', (event) => {
  const copy = event.target.closest('[data-copy]');
  if (copy) {
    navigator.clipboard.writeText(copy.dataset.copy).then(
      () => flash(copy, 'Copied'),
      () => flash(copy, 'Copy failed: select the text'),
    );
    return;
  }
  const confirmed = event.target.closest('[data-confirm]');
  if (confirmed && !window.confirm(confirmed.dataset.confirm)) event.preventDefault();
});

document.addEventListener('change', (event) => {
  const all = event.target.closest('[data-select-all]');
  if (all) {
    for (const box of document.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`)) box.checked = all.checked;
  }
  const auto = event.target.closest('[data-autosubmit]');
  if (auto) auto.form.requestSubmit();
});

/** Says what a button did for two seconds, to screen readers too (the button's own label changes). */
function flash(button, text) {
  const label = button.dataset.label ?? button.textContent;
  button.dataset.label = label;
  button.textContent = text;
  setTimeout(() => {
    button.textContent = label;
  }, 2000);
}

document.addEventListener('DOMContentLoaded', () => {
  const chart = document.getElementById('chart');
  if (chart && window.uPlot) drawChart(chart, JSON.parse(chart.dataset.series));
});

// The chart (ingest/docs/dashboard.md#the-overviews-chart): the five figures per UTC day, counts on
// the left axis and money on the right, one tick label per day or per few days (never hours), and a
// legend that shows the hovered day's figures, else the period's totals. The texts come from the
// server (pages/chart.tsx) so that they read as the rest of the page.
const PLOT_HEIGHT = 300;
const DAY = 86_400;
// Ticks a whole number of days apart (uPlot picks the smallest that leaves room for the labels);
// from 30 days on, uPlot puts them on the first of a month.
const DAY_STEPS = [1, 2, 3, 4, 5, 7, 10, 14, 15, 30, 60, 90, 180, 365].map((days) => days * DAY);
// Counts are whole: no tick at 0.5 of a click.
const WHOLE_STEPS = [1, 2, 5].flatMap((n) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8].map((scale) => n * scale)).sort((a, b) => a - b);

const isoDay = (ts) => new Date(ts * 1000).toISOString().slice(0, 10);

function drawChart(element, series) {
  const x = series.dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const scale = 10 ** series.digits;
  const styles = getComputedStyle(document.documentElement);
  const color = (name) => styles.getPropertyValue(name).trim();
  const counts = new Intl.NumberFormat('en');
  // uPlot asks for a legend value with no day index while nothing is hovered: the totals then.
  const count = (label, key, n) => ({
    label,
    stroke: color(`--chart-${n}`),
    width: 2,
    value: (_u, v, _s, day) => (day == null ? series.totals[key] : counts.format(v)),
  });
  const money = (label, key, n) => ({
    ...count(label, key, n),
    scale: 'money',
    value: (_u, _v, _s, day) => (day == null ? series.totals[key] : series.money[key][day]),
  });
  const period = `totals of ${series.dates[0]} – ${series.dates[series.dates.length - 1]}`;
  const options = {
    width: element.clientWidth,
    height: PLOT_HEIGHT,
    tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: {
      // One day alone is drawn across its own width, its tick in the middle.
      x: { time: true, range: (_u, min, max) => (min === max ? [min - DAY / 2, max + DAY / 2] : [min, max]) },
      money: {},
    },
    axes: [
      {
        space: 90,
        incrs: DAY_STEPS,
        values: (_u, ticks) => {
          const days = ticks.map(isoDay);
          // The labels drawn on the canvas, readable by tests (e2e/dashboard-overview.spec.ts).
          element.dataset.ticks = days.join(' ');
          return days;
        },
      },
      { label: 'Count', incrs: WHOLE_STEPS },
      { scale: 'money', side: 1, label: series.currency, grid: { show: false } },
    ],
    series: [
      { label: 'Showing', value: (_u, v, _s, day) => (day == null ? period : isoDay(v)) },
      count('Clicks', 'clicks', 1),
      count('Leads', 'leads', 2),
      count('Customers', 'customers', 3),
      money('Revenue', 'revenue', 4),
      money('Commissions', 'commissions', 5),
    ],
  };
  const major = (cents) => cents / scale;
  const data = [x, series.clicks, series.leads, series.customers, series.revenue.map(major), series.commissions.map(major)];
  element.replaceChildren();
  const plot = new window.uPlot(options, data, element);
  new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: PLOT_HEIGHT })).observe(element);
}
