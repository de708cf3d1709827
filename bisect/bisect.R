# The metric over the measured revisions of a bisect: each revision's
# ratio to good's, with its confidence interval at the level its runs
# tested at (the csv's ci column, e.g. "99% CI" for 0.05 split over
# until-known's 5 looks), in first-parent order. Run in the bisect's
# folder: Rscript bisect.R
suppressPackageStartupMessages(library(ggplot2))
d <- read.csv("bisect.csv", stringsAsFactors = FALSE)
d <- d[!is.na(d$ratio_to_good), ]
d$label <- paste0(d$position, " ", d$short)
d$label <- factor(d$label, levels = d$label[order(d$position)])
levels <- unique(d$ci[d$ci != ""])
bars <- if (length(levels) == 1) levels else paste(levels, collapse = ", ")
p <- ggplot(d, aes(x = label, y = ratio_to_good, colour = class)) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey50") +
  geom_errorbar(aes(ymin = ci_low, ymax = ci_high), width = 0.2) +
  geom_point(size = 3) +
  labs(x = "revision (position on the first-parent line, commit)",
       y = "metric / good's (above 1: slower)",
       colour = "verdict", title = "Bisect: the metric over the measured revisions",
       subtitle = paste0("error bars: ", bars, " of the ratio to good")) +
  scale_colour_manual(values = c(good = "#1b9e77", `like good` = "#66c2a5", bad = "#d95f02", `like bad` = "#fc8d62",
                                 between = "#7570b3", `not yet known` = "grey50")) +
  theme_minimal() +
  theme(axis.text.x = element_text(angle = 30, hjust = 1))
ggsave("bisect.png", p, width = 8, height = 4.5, dpi = 100)
