// The Reports page's charts: each draws the table below it (the table stays, the no-script view
// and the accessible one). Chart.js (static/vendor/chartjs) draws on a canvas.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  if (typeof window.Chart === "undefined") return;
  const number = (text) => {
    const value = parseFloat(text);
    return Number.isFinite(value) ? value : 0;
  };

  function read(table) {
    const headers = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    const rows = [...table.querySelectorAll("tbody tr")].map((tr) =>
      [...tr.children].map((cell) => cell.textContent.trim()));
    return { headers, rows };
  }

  function datasets(data, columns) {
    return columns.map((column) => ({
      label: data.headers[column],
      data: data.rows.map((row) => number(row[column])),
    }));
  }

  const CHARTS = {
    // Outcomes: attempts per outcome.
    bar: (data) => ({ type: "bar", datasets: datasets(data, [1]) }),
    // Attempts per interval, with contacts and successes.
    intervals: (data) => ({ type: "bar", datasets: datasets(data, [1, 2, 3]) }),
    // Agents: attempts, contacts and successes per agent.
    agents: (data) => ({ type: "bar", datasets: datasets(data, [1, 2, 3]) }),
  };

  for (const box of document.querySelectorAll("[data-chart]")) {
    const table = document.getElementById(box.dataset.table);
    const make = CHARTS[box.dataset.chart];
    if (!table || !make) continue;
    const data = read(table);
    const spec = make(data);
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `${box.parentElement.querySelector("h2").textContent}: chart of the table below`);
    box.appendChild(canvas);
    new window.Chart(canvas, {
      type: spec.type,
      data: { labels: data.rows.map((row) => row[0]), datasets: spec.datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    box.dataset.drawn = "true";
  }
});
