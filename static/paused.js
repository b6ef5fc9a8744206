// What the live pages share (static/live.js, static/desk.js) when their stream is refused:
// why, as the server says it, and the line that says so above what they show.
"use strict";

// The message of a refused stream at `url` (the same address asked for JSON: no stream is
// opened to answer), or null: not refused, failing otherwise, or no answer.
window.whyStreamRefused = async (url) => {
  try {
    const response = await fetch(url, {
      credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" },
    });
    const said = response.headers.get("Content-Type") || "";
    const why = said.includes("application/json") ? await response.json() : {};
    // A refusal names its reason; any other answer (a 500, the database gone) is none.
    return (why.reason && why.message) || null;
  } catch (error) {
    return null; // no answer: the polls go on
  }
};

// A status line put before `element`, marked `data-<marker>` (a dataset name).
window.statusLine = (element, marker) => {
  const line = document.createElement("p");
  line.className = "notice";
  line.setAttribute("role", "status");
  line.dataset[marker] = "";
  element.parentNode.insertBefore(line, element);
  return line;
};
