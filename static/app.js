// Small progressive enhancements; every page works without them.
"use strict";

// "Add a row" on data-item tables: clones the last row with empty fields and new indexes.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-add-row]").forEach((button) => {
    const table = button.previousElementSibling.querySelector("[data-item-rows] tbody")
      || button.parentElement.querySelector("[data-item-rows] tbody");
    if (!table) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      const rows = table.querySelectorAll("tr:not(.row-error)");
      const last = rows[rows.length - 1];
      if (!last) return; // nothing to copy: the form holds no row at all
      const next = last.cloneNode(true);
      const index = rows.length;
      next.querySelectorAll("input").forEach((input) => {
        input.name = input.name.replace(/-\d+-/, `-${index}-`);
        input.id = input.id.replace(/-\d+-/, `-${index}-`);
        const label = input.getAttribute("aria-label");
        if (label) input.setAttribute("aria-label", label.replace(/\d+$/, `${index + 1}`));
        if (input.type === "checkbox") input.checked = false; else input.value = "";
      });
      table.appendChild(next);
      next.querySelector("input").focus();
    });
  });
});

// A refused form's summary: the focus goes to it, so a screen reader reads it first; its
// links put the focus in their field and show the field's label above it.
document.addEventListener("DOMContentLoaded", () => {
  const summary = document.querySelector("[data-error-summary]");
  if (summary) summary.focus();
  document.querySelectorAll(".error-summary a[href^='#']").forEach((link) => {
    link.addEventListener("click", (event) => {
      const field = document.getElementById(link.getAttribute("href").slice(1));
      if (!field) return;
      event.preventDefault();
      const label = field.closest("label") || document.querySelector(`label[for="${CSS.escape(field.id)}"]`);
      (label || field).scrollIntoView({ block: "start" });
      field.focus({ preventScroll: true });
    });
  });
});
