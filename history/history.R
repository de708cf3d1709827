# Each series of a history over its runs, in order (commit or time), with
# its change points as dashed lines. Run in the history's folder:
# Rscript history.R
suppressPackageStartupMessages(library(ggplot2))
d <- read.csv("history.csv", stringsAsFactors = FALSE)
d$series_name <- paste0(d$series, ". ", d$case, " (", d$metric, ")")
changes <- d[d$change_here == "true", ]
p <- ggplot(d, aes(x = position, y = value)) +
  geom_line(colour = "grey60") +
  geom_point(aes(colour = change_here == "true"), size = 2) +
  scale_colour_manual(values = c(`FALSE` = "black", `TRUE` = "red"), guide = "none") +
  geom_vline(data = changes, aes(xintercept = position - 0.5), linetype = "dashed", colour = "red") +
  facet_wrap(~series_name, scales = "free_y", ncol = 1) +
  labs(x = "run (ordered by commit where builds have commits, else by time)", y = "payments/s (or relative to the control)",
       title = "History: each series with its change points") +
  theme_minimal()
ggsave("history.png", p, width = 9, height = 2.5 + 2.5 * length(unique(d$series)), dpi = 100, limitsize = FALSE)
