"""The small core every blueprint stands on: request checks (guard), language (i18n), the table
registry (tables), request helpers (common), error answers (errors), the game view's pieces (render),
charts, the server and its HTTPS certificate (tls)."""
