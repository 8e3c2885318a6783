# board_spread.gp: rendered by attnlab-report from the records of every record of reports/h100/records, phase cudnn.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot board_spread.gp (reads board_spread.dat, writes board_spread.png)
set terminal pngcairo size 900,460 enhanced font 'DejaVu Sans,10'
set output 'board_spread.png'
set title 'Board spread, every record of reports/h100/records, phase cudnn: median and p10-p90 per board, over the group''s mean' noenhanced
set ylabel 'device time / mean of the boards'' medians'
set xtics ('cudnn 16x16x2048x64 paired (A/B)' 0, 'cudnn 16x16x2048x64:causal paired (A/B)' 1, 'cudnn 4x16x4096x128 paired (A/B)' 2, 'cudnn 4x16x4096x128:causal paired (A/B)' 3) rotate by -30 noenhanced font ',8'
set xrange [-0.5:4-0.5]
set key above noenhanced
set grid ytics lc rgb '#dddddd'
set bars 2
plot 'board_spread.dat' using ($2 == 0 ? $1 + -0.06 : 1/0):3:4:5 with yerrorbars pt 7 ps 0.8 lc rgb '#1f77b4' title 'GPU-f0e7724f-c1b6-fc68-3ca3-69ab1e33984f' noenhanced, \
     'board_spread.dat' using ($2 == 1 ? $1 + 0.06 : 1/0):3:4:5 with yerrorbars pt 7 ps 0.8 lc rgb '#ff7f0e' title 'GPU-fdbd2029-67c2-acf2-8c81-1a233018c74a' noenhanced
