// The History's day fields (history_dates.html): the calendar button opens the browser's own date
// picker on a hidden date input and writes the day chosen into the text field as 2026-11-24, so the
// field shows the page's form of a day whatever the browser's locale.
document.querySelectorAll(".date-field").forEach((field) => {
  const text = field.querySelector("input.day");
  const picker = field.querySelector("input.day-picker");
  const button = field.querySelector("button.pick-day");
  button.addEventListener("click", () => {
    const m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(text.value.trim());
    picker.value = m ? `${m[1]}-${m[2].padStart(2, "0")}-${m[3].padStart(2, "0")}` : "";
    try { picker.showPicker(); } catch (e) { picker.focus(); picker.click(); }
  });
  picker.addEventListener("change", () => { if (picker.value) text.value = picker.value; });
});
