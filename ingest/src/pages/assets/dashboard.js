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

const PLOT_HEIGHT = 300;

function drawChart(element, series) {
  const x = series.dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const scale = 10 ** series.digits;
  const styles = getComputedStyle(document.documentElement);
  const color = (name) => styles.getPropertyValue(name).trim();
  const options = {
    width: element.clientWidth,
    height: PLOT_HEIGHT,
    tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, money: {} },
    axes: [{}, { label: 'Count' }, { scale: 'money', side: 1, label: 'Revenue', grid: { show: false } }],
    series: [
      {},
      { label: 'Clicks', stroke: color('--chart-1'), width: 2 },
      { label: 'Leads', stroke: color('--chart-2'), width: 2 },
      { label: 'Customers', stroke: color('--chart-3'), width: 2 },
      {
        label: 'Revenue',
        stroke: color('--chart-4'),
        width: 2,
        scale: 'money',
        value: (_u, v) => (v == null ? '' : (v / 1).toFixed(series.digits)),
      },
    ],
  };
  const data = [x, series.clicks, series.leads, series.customers, series.revenue.map((cents) => cents / scale)];
  element.replaceChildren();
  const plot = new window.uPlot(options, data, element);
  new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: PLOT_HEIGHT })).observe(element);
}
