# Each series of a history over its runs, in order (commit or time): a row
# of panels per series in the report's order, payments/s on the left and
# the median payment latency on the right, each panel named by its
# scenario and case, build, design and metric, with its change points as
# dashed red lines. Run in the history's folder: Rscript history.R
suppressPackageStartupMessages(library(ggplot2))
d <- read.csv("history.csv", stringsAsFactors = FALSE, colClasses = c(change_here = "character", latency_change_here = "character"))
track <- function(value, metric, here, column) {
  data.frame(series = d$series, name = d$series_name, position = d$position, value = value,
             metric = metric, change = tolower(here) == "true", column = column, stringsAsFactors = FALSE)
}
long <- rbind(track(d$value, d$metric, d$change_here, 1),
              track(d$latency_value, d$latency_metric, d$latency_change_here, 2))
wrap <- function(s) paste(strwrap(s, width = 80), collapse = "\n")
long$panel <- paste0(vapply(long$name, wrap, ""), "\n", long$metric)
# Panels in the CSV's series order (the report's), payments/s before latency.
long$panel <- factor(long$panel, levels = unique(long$panel[order(long$series, long$column)]))
changes <- long[long$change, ]
p <- ggplot(long, aes(x = position, y = value)) +
  geom_line(colour = "grey60") +
  geom_point(aes(colour = change), size = 2) +
  scale_colour_manual(values = c(`FALSE` = "black", `TRUE` = "red"), guide = "none") +
  geom_vline(data = changes, aes(xintercept = position - 0.5), linetype = "dashed", colour = "red") +
  scale_x_continuous(breaks = function(lim) {
    lo <- ceiling(lim[1]); hi <- floor(lim[2])
    seq(lo, hi, by = max(1, ceiling((hi - lo) / 10)))
  }) +
  facet_wrap(~panel, scales = "free", ncol = 2) +
  labs(x = "run (ordered by commit where builds have commits, else by time)",
       y = "payments/s | p50 latency ms (or relative to the control)",
       title = "History: each series with its change points") +
  theme_minimal() +
  theme(strip.text = element_text(size = 8, hjust = 0))
ggsave("history.png", p, width = 12, height = 1.5 + 2.8 * length(unique(d$series)), dpi = 100, limitsize = FALSE)
