# Reference values for infoloss's analyses family (estimates, regressions, Cronbach's alpha).
# Run from the repository root:  Rscript tests/data/reference_r/analyses.R
# Writes tests/data/reference_r/analyses.json (numbers printed with 17 significant digits).
suppressPackageStartupMessages({library(laeken); library(survey); library(boot)})
options(survey.lonely.psu = "fail")

# ---- a minimal JSON writer (jsonlite is not installed here) -----------------------------------------
num <- function(x) ifelse(is.na(x), "null", sprintf("%.17g", x))
to_json <- function(x, indent = "") {
  inner <- paste0(indent, "  ")
  if (is.list(x)) {
    if (is.null(names(x))) {
      items <- vapply(x, to_json, "", indent = inner)
      return(paste0("[\n", inner, paste(items, collapse = paste0(",\n", inner)), "\n", indent, "]"))
    }
    items <- mapply(function(k, v) paste0('"', k, '": ', to_json(v, inner)), names(x), x)
    return(paste0("{\n", inner, paste(items, collapse = paste0(",\n", inner)), "\n", indent, "}"))
  }
  if (is.character(x)) {
    s <- paste0('"', x, '"')
    return(if (length(x) == 1 && is.null(names(x))) s else paste0("[", paste(s, collapse = ", "), "]"))
  }
  if (is.logical(x)) x <- as.numeric(x)
  if (!is.null(names(x))) return(to_json(as.list(x), indent))
  if (length(x) == 1) return(num(x))
  paste0("[", paste(num(x), collapse = ", "), "]")
}
named <- function(values, labels) { v <- as.list(unname(values)); names(v) <- as.character(labels); v }
stat <- function(est) list(estimate = unname(coef(est)), se = unname(SE(est)))
by_stat <- function(b, labels) {
  list(domains = as.character(labels), estimate = unname(coef(b)), se = unname(SE(b)))
}

read <- function(path) read.csv(path, na.strings = "")
free1 <- read("tests/data/free1/original.csv")
td <- read("tests/data/testdata/original.csv")
td_noise <- read("tests/data/testdata/recode_pram_noise50.csv")
td_ls <- read("tests/data/testdata/ls_k3.csv")
out <- list()
out$versions <- list(R = paste(R.version$major, R.version$minor, sep = "."),
                     laeken = as.character(packageVersion("laeken")),
                     survey = as.character(packageVersion("survey")),
                     boot = as.character(packageVersion("boot")))

# ---- laeken: weighted quantiles, Gini, ARPR, QSR, with the naive bootstrap ----------------------------
R_BOOT <- 2000
f <- list()
probs <- c(0, 0.1, 0.2, 0.25, 0.5, 0.8, 0.9, 1)
f$quantile <- list(probs = probs, values = weightedQuantile(free1$INCOME, free1$WEIGHT, probs = probs))
f$median <- weightedMedian(free1$INCOME, free1$WEIGHT)
f$quantile_unweighted <- list(probs = probs, values = weightedQuantile(free1$INCOME, NULL, probs = probs))
g <- gini("INCOME", weights = "WEIGHT", breakdown = "SEX", data = free1, var = "bootstrap",
          R = R_BOOT, bootType = "naive", seed = 1)
f$gini <- list(value = g$value, by = named(g$valueByStratum$value, g$valueByStratum$stratum),
               var = g$var, ci = unname(g$ci),
               var_by = named(g$varByStratum$var, g$varByStratum$stratum),
               ci_by = lapply(split(g$ciByStratum[, c("lower", "upper")], g$ciByStratum$stratum), function(r) unname(unlist(r))),
               R = R_BOOT)
a <- arpr("INCOME", weights = "WEIGHT", breakdown = "SEX", data = free1, var = "bootstrap",
          R = R_BOOT, bootType = "naive", seed = 2)
f$arpr <- list(value = a$value, threshold = a$threshold, by = named(a$valueByStratum$value, a$valueByStratum$stratum),
               var = a$var, ci = unname(a$ci),
               ci_by = lapply(split(a$ciByStratum[, c("lower", "upper")], a$ciByStratum$stratum), function(r) unname(unlist(r))),
               R = R_BOOT)
q <- qsr("INCOME", weights = "WEIGHT", breakdown = "SEX", data = free1, var = "bootstrap",
         R = R_BOOT, bootType = "naive", seed = 3)
f$qsr <- list(value = q$value, by = named(q$valueByStratum$value, q$valueByStratum$stratum),
              var = q$var, ci = unname(q$ci), R = R_BOOT)
# the weighted median with the same naive bootstrap (boot::boot, percentile interval)
set.seed(4)
bm <- boot(free1, function(d, i) weightedMedian(d$INCOME[i], d$WEIGHT[i]), R = R_BOOT)
f$median_boot <- list(var = var(bm$t[, 1]), ci = boot.ci(bm, conf = 0.95, type = "perc")$percent[4:5], R = R_BOOT)
out$free1_laeken <- f

# stratified cluster bootstrap (laeken: households resampled within urbrur)
td$urbrur_f <- factor(td$urbrur); td$hid_f <- factor(td$ori_hid)
gc <- gini("income", weights = "household_weights", design = "urbrur_f", cluster = "hid_f", data = td,
           var = "bootstrap", R = R_BOOT, bootType = "naive", seed = 5)
out$testdata_gini_cluster <- list(value = gc$value, var = gc$var, ci = unname(gc$ci), R = R_BOOT)

# ---- survey: Taylor-linearised standard errors ----------------------------------------------------------
d1 <- svydesign(ids = ~1, weights = ~WEIGHT, data = free1)
d1s <- svydesign(ids = ~1, strata = ~SEX, weights = ~WEIGHT, data = free1)
s <- list()
s$mean_income <- stat(svymean(~INCOME, d1))
s$total_income <- stat(svytotal(~INCOME, d1))
s$ratio_money_income <- stat(svyratio(~MONEY, ~INCOME, d1))
s$mean_income_strata_sex <- stat(svymean(~INCOME, d1s))
s$prop_marstat <- c(list(categories = as.character(sort(unique(free1$MARSTAT)))), stat(svymean(~factor(MARSTAT), d1)))
s$mean_income_by_sex <- by_stat(svyby(~INCOME, ~SEX, d1, svymean), sort(unique(free1$SEX)))
s$total_income_by_sex <- by_stat(svyby(~INCOME, ~SEX, d1, svytotal), sort(unique(free1$SEX)))
s$ratio_by_sex <- by_stat(svyby(~MONEY, ~SEX, denominator = ~INCOME, d1, svyratio), sort(unique(free1$SEX)))
s$mean_income_unweighted <- stat(svymean(~INCOME, svydesign(ids = ~1, data = free1)))
out$free1_survey <- s

dt <- svydesign(ids = ~ori_hid, strata = ~urbrur, weights = ~household_weights, data = td, nest = TRUE)
t <- list()
t$mean_income <- stat(svymean(~income, dt))
t$total_expend <- stat(svytotal(~expend, dt))
t$ratio_savings_income <- stat(svyratio(~savings, ~income, dt))
t$prop_water <- c(list(categories = as.character(sort(unique(td$water)))), stat(svymean(~factor(water), dt)))
t$mean_income_by_sex <- by_stat(svyby(~income, ~sex, dt, svymean), sort(unique(td$sex)))
t$prop_water_by_urbrur <- {
  b <- as.data.frame(svyby(~factor(water), ~urbrur, dt, svymean))
  est <- as.matrix(b[, grep("^factor", names(b), value = TRUE)])
  se <- as.matrix(b[, grep("^se\\.", names(b), value = TRUE)])
  # row-major: every category of the first domain, then of the second
  list(domains = as.character(b$urbrur), categories = sub("factor\\(water\\)", "", colnames(est)),
       estimate = as.vector(t(est)), se = as.vector(t(se)))
}
t$mean_income_by_relat <- by_stat(svyby(~income, ~relat, dt, svymean), sort(unique(td$relat)))
# missing values: the protected file ls_k3 has suppressed relat; svymean with na.rm drops them (domain)
dls <- svydesign(ids = ~ori_hid, strata = ~urbrur, weights = ~household_weights, data = td_ls, nest = TRUE)
t$ls_k3_prop_relat <- c(list(categories = as.character(sort(unique(na.omit(td_ls$relat))))),
                        stat(svymean(~factor(relat), dls, na.rm = TRUE)))
out$testdata_survey <- t

# ---- regressions: lm and glm ----------------------------------------------------------------------------
coef_table <- function(fit, ci) {
  list(names = names(coef(fit)), estimate = unname(coef(fit)), se = unname(sqrt(diag(vcov(fit)))),
       lower = unname(ci[, 1]), upper = unname(ci[, 2]))
}
mincer <- log(income) ~ age + I(age^2) + factor(sex) + factor(urbrur) + I(expend / 1e7)
reg <- list()
for (name in c("original", "recode_pram_noise50")) {
  d <- if (name == "original") td else td_noise
  fit <- lm(mincer, data = subset(d, income > 0), weights = sampling_weight)
  reg[[paste0("mincer_", name)]] <- c(coef_table(fit, confint(fit, level = 0.95)),
    list(adj_r2 = summary(fit)$adj.r.squared, r2 = summary(fit)$r.squared, df_residual = fit$df.residual,
         n = nobs(fit)))
}
fit <- lm(log(income) ~ age + factor(water) + I(expend / 1e7), data = td, weights = household_weights)
reg$lm_household_weights <- c(coef_table(fit, confint(fit, level = 0.9)),
  list(adj_r2 = summary(fit)$adj.r.squared, level = 0.9))
td$w_norm <- td$household_weights / mean(td$household_weights)
fit <- suppressWarnings(glm(I(sex == 2) ~ age + log(income) + factor(urbrur), data = td, family = binomial,
                            weights = w_norm))
reg$logit_sex <- c(coef_table(fit, confint.default(fit, level = 0.95)),
  list(deviance = fit$deviance, null_deviance = fit$null.deviance, n = nobs(fit),
       cox_snell = 1 - exp((fit$deviance - fit$null.deviance) / sum(td$w_norm))))
fit <- glm(I(sex == 2) ~ age + log(income) + factor(urbrur), data = td, family = binomial)
reg$logit_sex_unweighted <- c(coef_table(fit, confint.default(fit, level = 0.95)),
  list(deviance = fit$deviance, null_deviance = fit$null.deviance))
fit <- glm(relat ~ age + factor(sex), data = td, family = poisson, weights = w_norm)
reg$poisson_relat <- c(coef_table(fit, confint.default(fit, level = 0.95)),
  list(deviance = fit$deviance, null_deviance = fit$null.deviance))
out$testdata_regressions <- reg

# ---- Cronbach's alpha (by its formula; psych is not installed) --------------------------------------------
items <- free1[, c("RECUNBEN", "RECODBEN", "RECBILL", "RECSOSEC", "RECPENS")]
alpha <- function(x, w = NULL) {
  k <- ncol(x)
  if (is.null(w)) { v <- apply(x, 2, var); vt <- var(rowSums(x)) }
  else { cw <- cov.wt(cbind(x, total = rowSums(x)), wt = w)$cov; v <- diag(cw)[1:k]; vt <- cw[k + 1, k + 1] }
  k / (k - 1) * (1 - sum(v) / vt)
}
out$free1_alpha <- list(items = names(items), alpha = alpha(items), alpha_weighted = alpha(items, free1$WEIGHT),
                        if_deleted = sapply(seq_along(items), function(j) alpha(items[, -j])))
eia <- read("tests/data/EIA/original.csv")
items <- eia[, c("RESREVENUE", "COMREVENUE", "INDREVENUE", "OTHREVENUE")]
out$eia_alpha <- list(items = names(items), alpha = alpha(items),
                      if_deleted = sapply(seq_along(items), function(j) alpha(items[, -j])))

writeLines(to_json(out), "tests/data/reference_r/analyses.json")
cat("wrote tests/data/reference_r/analyses.json\n")
