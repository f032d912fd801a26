// Applies the saved theme before the first paint so dark-mode users never see a white flash.
// The React ThemeProvider takes over once the app starts (same key, same default: system).
(function () {
  var preference = "system";
  try {
    var stored = localStorage.getItem("theme");
    if (stored === "light" || stored === "dark" || stored === "system") preference = stored;
  } catch {
    // Storage is blocked (a privacy setting): keep the default.
  }
  var dark =
    preference === "dark" ||
    (preference === "system" && window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
})();
