# ratios_6.gp: rendered by attnlab-report from the A/B record reports/h100/records/ab/5-vs-cudnn/20261126T054405Z-9477296/run.json.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot ratios_6.gp (reads ratios_6.dat, writes ratios_6.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'ratios_6.png'
set title '32x32x512x64:causal: per-pair ratio t_B / t_A in sampling order' noenhanced
set xlabel 'pair'
set ylabel 't_B / t_A' noenhanced
set key above noenhanced
set grid xtics ytics lc rgb '#dddddd'
plot 'ratios_6.dat' using 1:2 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'wall', \
     '' using 1:3 with points pt 6 ps 0.5 lc rgb '#ff7f0e' title 'cycles', \
     0.830067535 with lines lc rgb '#444444' title 'median', \
     0.828235993 with lines dt 2 lc rgb '#888888' title '95% interval', \
     0.831751884 with lines dt 2 lc rgb '#888888' notitle
