// The report charts (the Reports page, a campaign's dry run): each draws the table below it
// (the table stays, the no-script view and the accessible one). Chart.js
// (static/vendor/chartjs) draws on a canvas. A campaign page asks for its dry run once shown
// (it reads every open task) and draws it when it comes.
"use strict";

(() => {
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
    // A dry run: callable, and held back by each rule, per interval.
    forecast: (data) => ({
      type: "line", datasets: datasets(data, data.headers.map((_, n) => n).slice(1)),
    }),
  };

  function draw(root) {
    if (typeof window.Chart === "undefined") return;
    for (const box of root.querySelectorAll("[data-chart]")) {
      if (box.dataset.drawn) continue;
      drawOne(box);
    }
  }

  function drawOne(box) {
    const table = document.getElementById(box.dataset.table);
    const make = CHARTS[box.dataset.chart];
    if (!table || !make) return;
    const data = read(table);
    const spec = make(data);
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    const title = box.closest("section")?.querySelector("h2") || document.querySelector("h1");
    canvas.setAttribute("aria-label", `${title ? title.textContent : "Chart"}: chart of the table below`);
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

  async function loadForecast(section) {
    try {
      const response = await fetch(section.dataset.forecastUrl, {
        credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" },
      });
      if (!response.ok) return; // the link to the dry run's page stays
      const panel = document.createElement("div");
      panel.innerHTML = await response.text();
      section.querySelector("[data-forecast-link]")?.after(...panel.childNodes);
      section.dataset.loaded = "true";
      draw(section);
    } catch (error) {
      // No answer: the link to the dry run's page stays.
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    draw(document);
    for (const section of document.querySelectorAll("[data-forecast-url]")) loadForecast(section);
  });
})();
